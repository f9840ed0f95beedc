-- warm.lua — cache = "warm" in virtual time (test_warm.sh): generated
-- JPEGs read by one decode worker into a simulated P100, on a page-cache
-- model of mem, cold or warm, for a number of iterations.
local p = params{
  count = 64,
  iterations = 8,
  batch = 8,
  mem = "16MiB",
  cache = "cold",
}
report{ title = "cache = warm in virtual time" }
dataset{ kind = "imagenet-jpeg", count = p.count }
mount{ tier = "ssd-cloud", mem = p.mem, cache = p.cache }
-- a host profile's decode costs: the same figures on every machine
pipeline{ vcpus = 1, qd = 4, prefetch = 2, host = "epyc-zen4" }
engine{ model = "googlenet", gpu = "P100-PCIe", framework = "nvcaffe", mode = "infer",
        batch = p.batch }
run{ iterations = p.iterations, warmup = 0 }
