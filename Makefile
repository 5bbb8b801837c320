# Shortcuts; the two commands of the README are ./run course and ./run test.
.PHONY: figures figures-fast

# Regenerate every file in figures/ (seeded; a few minutes on 2 cores).
figures:
	./run setup
	.venv/bin/python -m mctslab.course.figures --workers 2

# The same figures on tiny budgets, in seconds: checks that they all build (into a temporary folder).
figures-fast:
	./run setup
	.venv/bin/python -m mctslab.course.figures --fast --out "$$(mktemp -d)"
