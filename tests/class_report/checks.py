"""The tests' checks: each counted, a failure printed and kept."""
import sys

failures = []
passed = [0]


def check(condition, message):
    if condition:
        passed[0] += 1
    else:
        failures.append(message)
        print(f"FAIL: {message}", file=sys.stderr)


def summary():
    """Prints the counts; the exit status."""
    print(f"{passed[0]} passed, {len(failures)} failed")
    return 1 if failures else 0
