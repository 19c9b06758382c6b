/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * Whether a btrfs has a traced device, from btrfs's own list of them.
 *
 * btrfs keeps no device in its super_block's s_bdev and numbers itself
 * apart, so neither says where it lives; user space learns a traced one
 * from sysfs, but only once it sees the mount. Its list, read here, is
 * current: a device added or removed since the mount counts at once.
 * The list changes under a mutex this cannot take, so a read racing a
 * device's addition may miss it: that answers for the one call.
 */
#ifndef IOTRACE_BTRFS_DEVS_BPF_H
#define IOTRACE_BTRFS_DEVS_BPF_H

/* devices looked at; a btrfs with more counts as traced */
#define IOTRACE_BTRFS_MAX_DEVS 16

struct btrfs_device___iotrace {
	struct list_head dev_list;
	struct block_device *bdev;
} __attribute__((preserve_access_index));

struct btrfs_fs_devices___iotrace {
	struct list_head devices;
	struct list_head seed_list;
} __attribute__((preserve_access_index));

struct btrfs_fs_info___iotrace {
	struct btrfs_fs_devices___iotrace *fs_devices;
} __attribute__((preserve_access_index));

/*
 * Whether block device bdev_addr (a number, as the verifier wants a
 * global function's arguments) is traced, or a partition of a traced
 * disk. Global: dev_traced()'s loop inside the caller's would be
 * verified once per device.
 */
__noinline int bdev_traced_global(__u64 bdev_addr)
{
	struct block_device *bdev = (struct block_device *)bdev_addr;
	__u32 dev, part;

	if (!bdev)
		return 0;
	iotrace_bdev_devs_probed(bdev, &dev, &part);
	return dev_traced(dev, part) != 0;
}

/*
 * Whether btrfs sb may have files on a traced device: true where it has
 * one, and where that cannot be told (a kernel without these fields,
 * seed devices, more devices than looked at).
 */
static __always_inline bool iotrace_btrfs_traced(struct super_block *sb)
{
	struct btrfs_fs_info___iotrace *info;
	struct btrfs_fs_devices___iotrace *fsd;
	struct btrfs_device___iotrace *d;
	__u64 head, seeds, node;
	__u32 i;

	if (!bpf_core_field_exists(struct btrfs_fs_info___iotrace, fs_devices) ||
	    !bpf_core_field_exists(struct btrfs_fs_devices___iotrace, devices) ||
	    !bpf_core_field_exists(struct btrfs_fs_devices___iotrace, seed_list) ||
	    !bpf_core_field_exists(struct btrfs_device___iotrace, bdev))
		return true;
	info = (void *)BPF_CORE_READ(sb, s_fs_info);
	fsd = info ? BPF_CORE_READ(info, fs_devices) : NULL;
	if (!fsd)
		return true;
	seeds = (__u64)fsd + bpf_core_field_offset(struct btrfs_fs_devices___iotrace, seed_list);
	if ((__u64)BPF_CORE_READ(fsd, seed_list.next) != seeds)
		return true;
	head = (__u64)fsd + bpf_core_field_offset(struct btrfs_fs_devices___iotrace, devices);
	node = (__u64)BPF_CORE_READ(fsd, devices.next);
	for (i = 0; i < IOTRACE_BTRFS_MAX_DEVS; i++) {
		if (node == head || !node)
			return false;
		d = (void *)(node - bpf_core_field_offset(struct btrfs_device___iotrace, dev_list));
		if (bdev_traced_global((__u64)BPF_CORE_READ(d, bdev)))
			return true;
		node = (__u64)BPF_CORE_READ(d, dev_list.next);
	}
	return true;
}

#endif /* IOTRACE_BTRFS_DEVS_BPF_H */
