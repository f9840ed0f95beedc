-- validation/tiers.lua — tiers the validation cases need that are not
-- built in: volumes provisioned as the measured ones were (AWS gp3 and io2
-- with their IOPS and throughput set, Azure managed disks). Same form as
-- fs/tiers.lua; `tiersim validate` adds this file for the cases that name it
-- (config.device.profile), and so can a user: tierfs -o profile=FILE.

local KiB = 1024

-- AWS gp3 with provisioned IOPS and throughput, as volumes of
-- miztiik/ebs-gp3-perf scripts/create_and_attach_volumes.sh (2020-12):
-- 51 GiB, 4,000 IOPS, 1,000 MiB/s; 55 GiB, 16,000 IOPS, 1,000 MiB/s.
-- Caps: AWS EBS doc general-purpose.md (gp3 IOPS and throughput are
-- provisioned independently of size). Latency: by fs/tiers.lua's rule R3
-- ("single-digit millisecond" -> 1-10 ms -> p50 3.16 ms, p99 10 ms).
local function gp3(name, iops, mibps)
	tier(name) {
		desc = "AWS EBS gp3 provisioned " .. iops .. " IOPS, " .. mibps .. " MiB/s",
		source = "AWS EBS doc general-purpose.md (provisioned gp3)",
		capacity = { min = "1GiB", max = "16384GiB", default = "50GiB" },
		iops = iops,
		mibps = mibps,
		io_unit = 256 * KiB,
		merge_sequential = true,
		latency = { read = { p50 = "3.162ms", p99 = "10ms" }, write = { p50 = "3.162ms", p99 = "10ms" },
			    meta = { p50 = "3.162ms", p99 = "10ms" }, sync = { p50 = "3.162ms", p99 = "10ms" } },
	}
end
gp3("aws-gp3-4000", 4000, 1000)
gp3("aws-gp3-16000", 16000, 1000)

-- AWS io2 provisioned 16,000 IOPS on 54 GiB (same script). io2 up to
-- 32,000 IOPS delivers up to 500 MiB/s (AWS EBS doc provisioned-iops.md).
-- Latency by R3 ("sub-millisecond" -> 0.1-1 ms -> p50 316 us, p99 1 ms).
tier "aws-io2-16000" {
	desc = "AWS EBS io2 provisioned 16,000 IOPS",
	source = "AWS EBS doc provisioned-iops.md",
	capacity = { min = "4GiB", max = "16384GiB", default = "54GiB" },
	iops = 16000,
	mibps = 500,
	io_unit = 256 * KiB,
	merge_sequential = true,
	latency = { read = { p50 = "316us", p99 = "1ms" }, write = { p50 = "316us", p99 = "1ms" },
		    meta = { p50 = "316us", p99 = "1ms" }, sync = { p50 = "316us", p99 = "1ms" } },
}

-- Azure Premium SSD P30 (1 TiB): 5,000 IOPS and 200 MB/s per disk (Azure
-- managed disks doc, "Premium SSD sizes"; the same figures are quoted as
-- "expected" in tkubica12/cloud-storage-tests disks/disks.md). Latency:
-- the doc says "single-digit millisecond"; by R3 p50 3.16 ms, p99 10 ms.
tier "azure-premium-p30" {
	desc = "Azure Premium SSD P30 (1 TiB)",
	source = "Azure managed disks doc 'Premium SSD sizes' (P30)",
	capacity = { min = "513GiB", max = "1024GiB", default = "1024GiB" },
	iops = 5000,
	mibps = 200 * 1e6 / 1048576,
	latency = { read = { p50 = "3.162ms", p99 = "10ms" }, write = { p50 = "3.162ms", p99 = "10ms" },
		    meta = { p50 = "3.162ms", p99 = "10ms" }, sync = { p50 = "3.162ms", p99 = "10ms" } },
}

-- Azure Ultra Disk provisioned 20,000 IOPS and 300 MB/s on 1 TiB, as in
-- tkubica12/cloud-storage-tests disks/disks.md. Caps are the provisioned
-- figures (Azure doc "Ultra disks": IOPS and throughput set per disk).
-- Latency: "sub-millisecond" -> by R3 p50 316 us, p99 1 ms.
tier "azure-ultra-20000" {
	desc = "Azure Ultra Disk provisioned 20,000 IOPS, 300 MB/s",
	source = "Azure managed disks doc 'Ultra disks'",
	capacity = { min = "4GiB", max = "65536GiB", default = "1024GiB" },
	iops = 20000,
	mibps = 300 * 1e6 / 1048576,
	latency = { read = { p50 = "316us", p99 = "1ms" }, write = { p50 = "316us", p99 = "1ms" },
		    meta = { p50 = "316us", p99 = "1ms" }, sync = { p50 = "316us", p99 = "1ms" } },
}
