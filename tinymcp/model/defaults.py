"""The prompts served when no config is given: a few that are useful on any project."""

DEFAULT_CONFIG = {
    "server": {"name": "tinymcp", "title": "tinymcp default prompts",
               "instructions": "Prompts for everyday code work: review, explain an error, write a commit message, write tests."},
    "prompts": [
        {"name": "code_review", "title": "Review code",
         "description": "Review a piece of code for bugs, clarity and risk.",
         "arguments": [{"name": "code", "description": "The code to review", "required": True},
                       {"name": "language", "description": "Its language, if not obvious", "default": "source"},
                       {"name": "focus", "description": "What to look at most (e.g. security, speed)",
                        "default": "correctness first, then clarity"}],
         "messages": [{"role": "user", "text": (
             "Please review the following {language} code. Focus on: {focus}.\n"
             "List concrete problems with the line they occur on, most serious first, "
             "and suggest a fix for each. Say so plainly if you find nothing wrong.\n\n{code}")}]},
        {"name": "explain_error", "title": "Explain an error",
         "description": "Explain an error message or stack trace and how to fix it.",
         "arguments": [{"name": "error", "description": "The error message or stack trace", "required": True},
                       {"name": "context", "description": "What you were doing when it happened",
                        "default": "none given"}],
         "messages": [{"role": "user", "text": (
             "Explain this error: what it means, the most likely causes, and how to fix "
             "each one. Context: {context}\n\n{error}")}]},
        {"name": "commit_message", "title": "Write a commit message",
         "description": "Write a commit message for a diff.",
         "arguments": [{"name": "diff", "description": "The diff to describe", "required": True},
                       {"name": "style", "description": "Message style",
                        "default": "a short imperative subject line, a blank line, then why the change was made"}],
         "messages": [{"role": "user", "text": (
             "Write a commit message for the diff below, in this style: {style}. "
             "Describe what changed and why, not how.\n\n{diff}")}]},
        {"name": "write_tests", "title": "Write tests",
         "description": "Write focused tests for a piece of code.",
         "arguments": [{"name": "code", "description": "The code to test", "required": True},
                       {"name": "framework", "description": "Test framework to use", "default": "pytest"}],
         "messages": [{"role": "user", "text": (
             "Write {framework} tests for the code below: one test per behaviour, named for "
             "it, covering edge cases and error paths.\n\n{code}")}]},
    ],
}
