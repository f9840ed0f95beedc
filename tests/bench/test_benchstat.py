"""test_benchstat.py SOURCE_ROOT — bench/benchstat.py and bench/lib.sh on
known inputs, to the digit: the median of odd and even counts, the range,
ratios and differences taken round by round (not of the medians), words
that are not numbers left out, the rounds' order rotated."""
import os
import subprocess
import sys

root = sys.argv[1]
bench = os.path.join(root, "bench")
sys.path.insert(0, bench)
import benchstat as bs  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import check, done  # noqa: E402


check("median odd", bs.median([3, 1, 2]), 2)
check("median even", bs.median([4, 1, 3, 2]), 2.5)
check("median one", bs.median([7]), 7)
check("summary", bs.summary([5, 1, 9, 3, 7]), (5, 1, 9))
check("show", bs.show(["1.5", "0.5", "1"]), "1.000 (0.500..1.500)")
check("show fmt", bs.show([1, 2, 3, 4], "%.2f"), "2.50 (1.00..4.00)")
check("show skips words", bs.show(["-", "timeout", "nan", "2", "inf", "4"]), "3.000 (2.000..4.000)")
check("show nothing", bs.show(["-", "x"]), "-")
check("show raw", bs.show([4, 1, 3, 2], "%.1f", raw=True), "2.5 1.0 4.0")
check("show raw nothing", bs.show([], raw=True), "- - -")
# rounds where the ratio of the medians (4 / 2 = 2) is not the median of
# the rounds' ratios (1, 4, 1.5 -> 1.5)
a, b = ["2", "4", "6"], ["2", "1", "4"]
check("ratios", bs.ratios(a, b), [1.0, 4.0, 1.5])
check("ratio shown", bs.show(bs.ratios(a, b)), "1.500 (1.000..4.000)")
check("ratio skips", bs.ratios(["1", "-", "3"], ["2", "2", "0"]), [0.5])
check("diffs", bs.diffs(["5", "1"], ["2", "3"]), [3.0, -2.0])
# the median's interval: n = 5 -> ranks 1 and 5 (P(B < 1) = 1/32), 93.75%;
# n = 15 -> ranks 4 and 12 (P(B < 4) = 576/32768; P(B < 5) = 0.059 > 0.05);
# n = 4 has none (P(B < 1) = 1/16 > 0.05); words left out
check("interval 5", bs.median_interval([5, 1, 4, 2, 3]), (1, 5, 0.9375))
check("interval 15", bs.median_interval(list(range(15, 0, -1)) + ["-"]),
      (4, 12, 1 - 2 * 576 / 32768))
check("interval 4", bs.median_interval([1, 2, 3, 4]), None)
check("interval 95%", bs.median_interval(list(range(1, 16)), 0.95), (4, 12, 1 - 2 * 576 / 32768))
check("interval 99%", bs.median_interval(list(range(1, 16)), 0.99), (3, 13, 1 - 2 * 121 / 32768))
try:
    bs.ratios(["1", "2"], ["1"])
    check("rounds differ", "no error", "ValueError")
except ValueError:
    pass


def run(args, stdin=None):
    r = subprocess.run(args, input=stdin, capture_output=True, text=True)
    return r.returncode, r.stdout.strip()


py = [sys.executable, os.path.join(bench, "benchstat.py")]
check("cli stat", run(py + ["stat", "3", "1", "2"]), (0, "2.000 (1.000..3.000)"))
check("cli stat stdin", run(py + ["stat", "-f", "%.1f"], "4\n1 3\n2\n"), (0, "2.5 (1.0..4.0)"))
check("cli ratio", run(py + ["ratio", "-f", "%.2f", "2 4 6", "2 1 4"]), (0, "1.50 (1.00..4.00)"))
check("cli raw", run(py + ["stat", "-r", "-f", "%.0f", "9", "1", "5"]), (0, "5 1 9"))
check("cli raw ratio", run(py + ["ratio", "-r", "2 4 6", "2 1 4"]), (0, "1.500 1.000 4.000"))
check("cli diff", run(py + ["diff", "5 1", "2 3"]), (0, "0.500 (-2.000..3.000)"))
check("cli rounds differ", run(py + ["ratio", "1 2", "1"])[0], 1)
check("cli bad format", run(py + ["stat", "-f", "%d%d", "1"])[0], 1)

lib = os.path.join(bench, "lib.sh")
sh = ". '%s' && " % lib
check("order 0", run(["bash", "-c", sh + "bench_order 0 a b c | tr '\\n' ' '"]), (0, "a b c"))
check("order 1", run(["bash", "-c", sh + "bench_order 1 a b c | tr '\\n' ' '"]), (0, "b c a"))
check("order 4", run(["bash", "-c", sh + "bench_order 4 a b c | tr '\\n' ' '"]), (0, "b c a"))
check("order pair", run(["bash", "-c", sh + "bench_order 1 A B | tr '\\n' ' '"]), (0, "B A"))
check("lib ratio", run(["bash", "-c", sh + "bench_ratio '3 8' '1 2'"]), (0, "3.500 (3.000..4.000)"))
rc, out = run(["bash", "-c", sh + "bench_load"])
check("lib load", (rc, out.startswith("load ") and out.endswith(" CPUs")), (0, True))
done()
