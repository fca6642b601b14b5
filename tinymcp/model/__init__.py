"""A plain dict to validated prompts, and what is served of them: the config, the one
prompt validator, templates, content blocks, URIs and limits. Sans-I/O."""
