"""Importing authentic tool descriptions (OpenAPI, Google Discovery, botocore, MCP) into covert environments."""
