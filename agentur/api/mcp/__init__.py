"""The MCP server: agentur's safe tools and knowledge files over streamable HTTP."""
