import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import calc  # noqa: E402


class TestCalc(unittest.TestCase):
    def test_mul(self):
        self.assertEqual(calc.mul(3, 4), 12)


if __name__ == "__main__":
    unittest.main()
