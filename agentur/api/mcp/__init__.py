"""The MCP server (issue 17): agentur's safe tools and knowledge files over streamable HTTP."""
