"""Connections (T4): access to outside systems (mail, WebDAV, …) per user or per mandate."""
