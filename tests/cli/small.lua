-- small.lua — a scenario small enough for the test suite: 64 generated
-- JPEGs read through tierfs by one decode worker into a simulated P100.
local p = params{
  count = 64,
  iterations = 4,
  batch = 8,
  tier = "ssd-cloud",
  fail_after = false,   -- raise a Lua error after the first run
}
report{ title = "test scenario" }
dataset{ kind = "imagenet-jpeg", count = p.count }
mount{ tier = p.tier, mem = "16MiB" }
pipeline{ vcpus = 1, qd = 4, prefetch = 2 }
engine{ model = "googlenet", gpu = "P100-PCIe", framework = "nvcaffe", mode = "infer",
        batch = p.batch }
local rows = run{ iterations = p.iterations, warmup = 1 }
if p.fail_after then
  error("failing on purpose after " .. #rows .. " row(s)")
end
