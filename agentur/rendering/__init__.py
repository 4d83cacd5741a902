"""Documents and charts the agent produces: Markdown to DOCX, PDF, XLSX and HTML, and
simple charts to PNG and SVG. Pure functions from data to bytes; the tools store the bytes."""
