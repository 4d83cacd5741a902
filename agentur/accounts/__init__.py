"""Users, mandates (tenants), memberships, feature instances and API keys."""
