"""Keep and block rules, the pure part: patterns compiled with RE2, a post's verdict.

No database here (``importing.judging`` loads the rules and writes the verdicts), so
the model validates its pattern with the very code that will run it.
"""
