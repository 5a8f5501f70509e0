"""pytest plugin (``-p pecheck.pytest_plugin``, or ``pytest_plugins = ["pecheck.pytest_plugin"]`` in
a conftest.py): ``--pecheck-report DIR`` writes the reports of every ``pecheck.verify`` call a test
makes (``pecheck.testing.assert_verified`` included) to DIR/<test id>/report.json, report.md,
report.html and junit.xml."""
import os

import pecheck


def pytest_addoption(parser):
    parser.getgroup("pecheck").addoption(
        "--pecheck-report", metavar="DIR", default=None,
        help="write report.json/.md/.html and junit.xml of every pecheck.verify call to DIR/<test id>/")


def pytest_configure(config):
    d = config.getoption("--pecheck-report")
    pecheck._Reporting.dir = os.path.abspath(d) if d else None


def pytest_runtest_setup(item):
    pecheck._Reporting.test = item.nodeid
    pecheck._Reporting.calls = 0


def pytest_runtest_teardown(item):
    pecheck._Reporting.test = None
