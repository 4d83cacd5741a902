"""Workspace: folders and files of a mandate's members, with scope-based visibility."""
