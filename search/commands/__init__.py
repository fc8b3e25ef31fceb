"""One module per ``rulings`` command; ``options.py`` holds what several commands share."""
