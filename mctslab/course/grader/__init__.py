"""Mark a folder of submitted notebooks against the course's exercise checks (``python -m mctslab grade``)."""
