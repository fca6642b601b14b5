"""Optional (a vendored copy may delete this folder): folders of prompt files (``--prompts``,
``prompt_dirs``) in the formats hosts use, the YAML subset of their front matter, and a
config file's JSON mistakes worded for the person who wrote it."""
