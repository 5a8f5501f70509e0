"""pytest helpers: ``assert_verified(kernel)`` makes a pecheck run one line of a test."""
import pecheck


def assert_verified(obj, **options):
    """Runs ``pecheck.verify(obj, **options)``; raises AssertionError whose text is the console
    summary (each finding with its shrunk witness and reproduce line) unless every check passed.
    Returns the Result."""
    r = pecheck.verify(obj, **options)
    if not r.passed:
        raise AssertionError(f"pecheck: {r.verdict} (exit status {r.exit_status})\n{r.text}")
    return r


def assert_fails(obj, check, **options):
    """Runs ``pecheck.verify`` and asserts that `check` failed with a counterexample; returns it."""
    r = pecheck.verify(obj, **options)
    if r.status(check) != "fail":
        raise AssertionError(f"pecheck: expected {check} to fail, it is {r.status(check)}\n{r.text}")
    return next(c for c in r.counterexamples if c["check"] == check)
