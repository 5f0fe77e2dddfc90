"""Rendering results: text for people, JSON for tools, SARIF for code-scanning UIs."""
