"""Connections: access to outside systems (mail, WebDAV, …) per user or per mandate."""
