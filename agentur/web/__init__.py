"""The workspace web app: static ES modules and CSS served by `agentur.api.routes.web_app`."""
