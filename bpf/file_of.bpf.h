/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * The file a block I/O belongs to (direct I/O, page cache, btrfs), its
 * FileId, and its name chain sent once per rename epoch. Part of
 * iotrace.bpf.c (included once, after ring_out.bpf.h).
 */
#ifndef IOTRACE_FILE_OF_BPF_H
#define IOTRACE_FILE_OF_BPF_H

/*
 * Files (and their directories) met so far. The value fixes the file's
 * creation date for the whole trace (its birth time where the file
 * system keeps one, else its ctime at first sight: the live ctime moves
 * with every write) and says in which rename epoch its name was last
 * sent. An evicted entry costs a resend of the chain, and where the date
 * is a ctime, a new FileId.
 */
#ifndef IOTRACE_MAX_FILES
#define IOTRACE_MAX_FILES 65536
#endif

struct file_key {
	__u64 ino;
	__u32 dev;
	__u32 pad;
};

struct file_seen {
	/* birth time, or ctime at first sight: the FileId's creation date */
	__s64 ctime_sec;
	__u32 ctime_nsec;
	/* i_generation at first sight: a reused inode number differs */
	__u32 generation;
	/* rename_epoch + 1 when its name was sent; 0 = not yet */
	__u64 sent_epoch;
	/* name_sig() of its first dentry alias when its name was sent */
	__u64 name_sig;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, IOTRACE_MAX_FILES);
	__type(key, struct file_key);
	__type(value, struct file_seen);
} files SEC(".maps");

/* Room for one name record: too big for the BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct iotrace_name_event);
} name_buf SEC(".maps");

/* Directory levels sent above a file at most (the root included). */
#ifndef IOTRACE_MAX_NAME_DEPTH
#define IOTRACE_MAX_NAME_DEPTH 16
#endif

/* S_IFMT and friends (include/uapi/linux/stat.h), not in vmlinux.h */
#define IOTRACE_S_IFMT 00170000
#define IOTRACE_S_IFREG 0100000
#define IOTRACE_S_IFLNK 0120000
#define IOTRACE_S_IFDIR 0040000
#define IOTRACE_S_IFBLK 0060000

#include "btrfs.bpf.h"
#include "overlay.bpf.h"

/*
 * A FileId's date for inode: its birth time, where the file system keeps
 * one, is the same whenever the file is met, so a file evicted from
 * files and met again keeps its FileId; else its ctime, which moves with
 * every write. A global function, verified once: inlined in every
 * program that meets files, the choice cost 0.4 s of start-up. Packed as
 * sec << 30 | nsec (nsec < 2^30; sec from 0 to 2^34 - 1: until 2514).
 */
__noinline __u64 file_date_global(__u64 inode_addr, __u64 sb_addr)
{
	struct inode *inode = (struct inode *)inode_addr;
	__s64 sec;
	__u32 nsec;

	if (!iotrace_inode_btime(inode, (struct super_block *)sb_addr, &sec, &nsec))
		iotrace_inode_ctime(inode, &sec, &nsec);
	if (sec < 0 || nsec >= 1000000000u)
		return 0;
	if (sec >= (1ll << 34))
		sec = (1ll << 34) - 1;
	return (__u64)sec << 30 | nsec;
}

/*
 * The FileId of inode and its entry in files, inserted at first sight.
 * Returns NULL only if the map refused the insert. cast: see
 * IOTRACE_READ (core_fixes.bpf.h).
 */
static __always_inline struct file_seen *file_entry_of(struct inode *inode,
						       struct iotrace_file_id *id,
						       const bool cast)
{
	struct file_key key = {};
	struct file_seen *f, nf = {};
	struct super_block *sb;
	__u32 gen;

	key.ino = IOTRACE_READ(cast, inode, i_ino);
	sb = IOTRACE_READ(cast, inode, i_sb);
	key.dev = iotrace_file_dev(inode, sb, cast);
	gen = IOTRACE_READ(cast, inode, i_generation);
	id->ino = key.ino;
	id->dev = key.dev;
	f = bpf_map_lookup_elem(&files, &key);
	if (!f || f->generation != gen) {
		/*
		 * a global function takes a pointer as a number (vfs.bpf.h),
		 * but the verifier refuses a typed one (untrusted_ptr_inode,
		 * from a cast load) there: read back from the stack by a
		 * helper, the value is a plain number
		 */
		__u64 date = file_date_global(iotrace_word_at(&inode, false),
					      iotrace_word_at(&sb, false));

		nf.ctime_sec = (__s64)(date >> 30);
		nf.ctime_nsec = (__u32)(date & ((1u << 30) - 1));
		nf.generation = gen;
		/*
		 * The inode number freed and given to a new file within one
		 * tick of the file system's clock (4 ms on ext4): the dates
		 * would be the same, and two files one FileId. The new one's
		 * comes a nanosecond after the old one's.
		 */
		if (f && (nf.ctime_sec < f->ctime_sec ||
			  (nf.ctime_sec == f->ctime_sec && nf.ctime_nsec <= f->ctime_nsec))) {
			nf.ctime_sec = f->ctime_sec;
			nf.ctime_nsec = f->ctime_nsec + 1;
			if (nf.ctime_nsec >= 1000000000u) {
				nf.ctime_sec++;
				nf.ctime_nsec = 0;
			}
		}
		/* a racing CPU may insert first: keep its date */
		bpf_map_update_elem(&files, &key, &nf, f ? BPF_ANY : BPF_NOEXIST);
		f = bpf_map_lookup_elem(&files, &key);
		if (!f)
			return NULL;
	}
	id->ctime_sec = f->ctime_sec;
	id->ctime_nsec = f->ctime_nsec;
	return f;
}

static __always_inline struct file_seen *file_entry(struct inode *inode,
						    struct iotrace_file_id *id)
{
	return file_entry_of(inode, id, false);
}

/* The entry in files of the file id names, NULL if it is not there (any more). */
static __always_inline struct file_seen *seen_file(const struct iotrace_file_id *id)
{
	struct file_key key = {};

	key.ino = id->ino;
	key.dev = id->dev;
	return bpf_map_lookup_elem(&files, &key);
}

/* file_entry() of the number inode_addr, for chain_entry(): 1 if there is one. */
__noinline int file_entry_global(__u64 inode_addr, struct iotrace_file_id *id)
{
	if (!id)	/* the verifier's due for a pointer argument */
		return 0;
	return file_entry((struct inode *)inode_addr, id) != NULL;
}

/*
 * file_entry() for the loops over a chain's directories below: the
 * insertion in a global function, verified once instead of in each of
 * their passes, then a second lookup, since a global function returns
 * no pointer. Chains are sent rarely.
 */
static __always_inline struct file_seen *chain_entry(struct inode *inode,
						     struct iotrace_file_id *id)
{
	/* a number, not a pointer: see file_entry_of() */
	if (!file_entry_global(iotrace_word_at(&inode, false), id))
		return NULL;
	return seen_file(id);
}

/*
 * A chain cut at IOTRACE_MAX_NAME_DEPTH: its directories, from d up, are
 * marked as not sent again. A directory marked sent stops the next chain
 * through it, whose file then would lack the levels above it too: a file
 * near the root, below a deep one's top directories, was named by a cut
 * path. Unmarked, each file below sends its own chain, whole where it fits.
 */
static __always_inline void unmark_cut_chain(struct dentry *d, __u64 epoch)
{
	struct iotrace_file_id unused;
	struct file_seen *f;
	struct inode *inode;
	__u32 i;

	for (i = 1; i < IOTRACE_MAX_NAME_DEPTH && d; i++) {
		inode = BPF_CORE_READ(d, d_inode);
		if (!inode)
			break;
		f = chain_entry(inode, &unused);
		if (f && f->sent_epoch == epoch)
			f->sent_epoch = 0;
		d = BPF_CORE_READ(d, d_parent);
	}
}

/*
 * Sends one record of a name chain, n: file is called name (kernel memory,
 * at the address name_addr) in parent. A global function: see send_name().
 */
__noinline int send_name_global(struct iotrace_name_event *n,
				const struct iotrace_file_id *file,
				const struct iotrace_file_id *parent, __u64 name_addr)
{
	if (!n || !file || !parent)	/* the verifier's due for pointer arguments */
		return 0;
	__builtin_memset(&n->hdr, 0, sizeof(n->hdr));
	n->hdr.type = IOTRACE_EV_FILE_NAME;
	stamp(&n->hdr);
	n->file = *file;
	n->parent = *parent;
	if (bpf_probe_read_kernel_str(n->name, sizeof(n->name), (const void *)name_addr) < 0)
		n->name[0] = 0;
	output_now(&n->hdr, sizeof(*n));
	return 0;
}

/*
 * send_name_global() verified once per program, not in each pass of a
 * chain's loop (send_chain_global()).
 */
static __always_inline void send_name(struct iotrace_name_event *n,
				      const struct iotrace_file_id *file,
				      const struct iotrace_file_id *parent, const void *name)
{
	/* a number, not a pointer: see file_entry_of() */
	send_name_global(n, file, parent, iotrace_word_at(&name, false));
}

/*
 * Sends the name chain of the file whose dentry is d, from the file up to
 * the first directory already sent in this rename epoch, or up to the
 * root of its file system (sent as "/" with itself as parent), at most
 * IOTRACE_MAX_NAME_DEPTH records: a deeper file is named by its lowest
 * levels. Each record takes one sid, before the record that needed it.
 * dir_addr and dir_inode_addr (0 for none): d's directory and its inode,
 * taken while it was cached; its inode is taken from there if a cache
 * drop has killed it since (see send_chain_from()).
 * A global function, verified once per program: inlined at each of its
 * callers (three in the queue program), its two loops cost the verifier
 * more than the rest of those programs. Names are rare: the call is
 * made only when a chain is sent. Use send_chain().
 */
__noinline int send_chain_global(__u64 dentry_addr, __u64 dir_addr, __u64 dir_inode_addr,
				 struct file_seen *f, struct iotrace_file_id *fid)
{
	struct dentry *d = (struct dentry *)dentry_addr;
	struct iotrace_file_id child, pid;
	struct dentry *parent;
	struct iotrace_name_event *n;
	struct file_seen *pf;
	struct inode *pinode;
	__u64 epoch = rename_epoch + 1;
	__u32 zero = 0, i;
	struct dentry *first_dir = NULL;
	bool whole = false;

	n = bpf_map_lookup_elem(&name_buf, &zero);
	if (!n || !f || !fid)	/* the verifier's due for pointer arguments */
		return 0;
	child = *fid;
	parent = d ? BPF_CORE_READ(d, d_parent) : NULL;
	pinode = parent ? BPF_CORE_READ(parent, d_inode) : NULL;
	/* out of the loop: each branch in it is verified in each pass */
	if (!pinode && parent && (__u64)parent == dir_addr)
		pinode = (struct inode *)dir_inode_addr;
	for (i = 0; i < IOTRACE_MAX_NAME_DEPTH && d; i++) {
		if (!pinode) {
			whole = true;
			break;
		}
		if (!first_dir)
			first_dir = parent;
		pf = chain_entry(pinode, &pid);
		send_name(n, &child, &pid, BPF_CORE_READ(d, d_name.name));
		f->sent_epoch = epoch;
		if (parent == d || !pf || pf->sent_epoch == epoch) {
			whole = true;
			break;
		}
		d = parent;
		f = pf;
		child = pid;
		parent = BPF_CORE_READ(d, d_parent);
		pinode = parent ? BPF_CORE_READ(parent, d_inode) : NULL;
	}
	if (!whole)
		unmark_cut_chain(first_dir, epoch);
	return 0;
}

static __always_inline void send_chain(struct dentry *d, struct file_seen *f,
				       struct iotrace_file_id *fid)
{
	/* a number, not a pointer: see file_entry_of() */
	send_chain_global(iotrace_word_at(&d, false), 0, 0, f, fid);
}

/*
 * send_chain() of a file whose dentry d was cached, with its directory
 * dir and dir's inode, a moment ago but is no longer held: a cache drop
 * on another CPU can kill both while the chain is sent. A killed dentry
 * keeps its name and parent until it is freed, which waits for this
 * program's end, but loses its inode: dir's is then the one taken.
 */
static __always_inline void send_chain_from(struct dentry *d, struct dentry *dir,
					    struct inode *dir_inode, struct file_seen *f,
					    struct iotrace_file_id *fid)
{
	send_chain_global(iotrace_word_at(&d, false), iotrace_word_at(&dir, false),
			  iotrace_word_at(&dir_inode, false), f, fid);
}

/*
 * What a file's name is: its dentry's parent and name (hash and length).
 * A rename changes it, also one that no rename(2) made, which the rename
 * epoch misses: overlayfs moving a copied-up file from its work directory
 * into place, nfsd. 0: no dentry.
 */
static __always_inline __u64 name_sig(struct dentry *d, const bool cast)
{
	if (!d)
		return 0;
	/* the parent read as a number: the verifier forbids math on pointers */
	return iotrace_word_at((char *)d + bpf_core_field_offset(struct dentry, d_parent), cast) ^
	       IOTRACE_READ(cast, d, d_name.hash_len);
}

/*
 * Sends file f's name chain unless this rename epoch sent it and its
 * first dentry alias is still where it was then. The chain goes through
 * d, or where d is NULL through that alias: a file found from a page has
 * no other dentry, and one with hard links is named by one of them. The
 * alias is also what is compared when a call names the file through
 * another link, so two links used in turn do not send names each time.
 * An inode without alias (unlinked and closed, or evicted dentry) sends
 * nothing.
 */
static __always_inline void name_file(struct file_seen *f,
				      struct iotrace_file_id *fid,
				      struct inode *inode, struct dentry *d,
				      const bool cast)
{
	struct dentry *alias = iotrace_inode_alias(inode, cast);
	__u64 sig = name_sig(alias, cast);

	if (f->sent_epoch == rename_epoch + 1 && (!sig || sig == f->name_sig))
		return;
	f->name_sig = sig;
	send_chain(d ? d : alias, f, fid);
}

/* The I/O is on regular file inode, from byte pos of it on. */
static __always_inline void set_file(struct iotrace_queue_event *q, struct inode *inode,
				     __u64 pos, const bool cast)
{
	q->file_kind = IOTRACE_FILE_REG;
	q->file_offset = pos >> 9;
	q->file_size = IOTRACE_READ(cast, inode, i_size) >> 9;
}

/*
 * The same for an inode met through its pages or its bio: its FileId, and
 * its names through a dentry alias when this rename epoch has not sent
 * them. False if the files map has no room.
 */
static __always_inline bool file_at(struct iotrace_queue_event *q, struct inode *inode,
				    __u64 pos, const bool cast)
{
	/* the one map lookup per I/O; names are rare */
	struct file_seen *f = file_entry_of(inode, &q->file, cast);

	if (!f)
		return false;
	set_file(q, inode, pos, cast);
	name_file(f, &q->file, inode, NULL, cast);
	return true;
}

/*
 * Direct I/O of iomap file systems (ext4, xfs; fs/iomap/direct-io.c): the
 * bio's bi_private is the call's struct iomap_dio, whose kiocb names the
 * file and the position the call started at; dio->size already counts
 * this bio when it is submitted (iomap_dio_bio_iter() adds it first), so
 * the bio starts at ki_pos + size - bi_size. The end_io function tells
 * such bios apart; a kernel without it (weak ksym: 0) sees none. This
 * works for every submitter (pwrite, libaio, io_uring) without tracing
 * system calls.
 */
extern const void iomap_dio_bio_end_io __ksym __weak;

/* The iomap direct I/O a bio belongs to, or NULL. */
static __always_inline struct iomap_dio *bio_iomap_dio(struct bio *bio)
{
	if (!&iomap_dio_bio_end_io || (void *)bio->bi_end_io != &iomap_dio_bio_end_io)
		return NULL;
	return bio->bi_private;
}

static __always_inline bool file_of_dio(struct bio *bio,
					struct iomap_dio *dio,
					struct iotrace_queue_event *q,
					const bool cast)
{
	struct kiocb *iocb;
	struct file *file;
	struct inode *inode;
	struct file_seen *f;
	__s64 pos;

	if (!dio)
		return false;
	iocb = IOTRACE_READ(cast, dio, iocb);
	file = IOTRACE_READ(cast, iocb, ki_filp);
	inode = IOTRACE_READ(cast, file, f_inode);
	if (!inode ||
	    (IOTRACE_READ(cast, inode, i_mode) & IOTRACE_S_IFMT) != IOTRACE_S_IFREG)
		return false;
	f = file_entry_of(inode, &q->file, cast);
	if (!f)
		return false;
	q->io.flags |= IOTRACE_F_DIRECT;
	pos = IOTRACE_READ(cast, iocb, ki_pos) + IOTRACE_READ(cast, dio, size) -
	      bio->bi_iter.bi_size;
	set_file(q, inode, pos > 0 ? (__u64)pos : 0, cast);
	name_file(f, &q->file, inode, NULL, cast);
	return true;
}

/*
 * A btrfs bio whose first page named no file: a direct I/O (a user
 * buffer) or a compressed extent (btrfs's own pages, which looked like
 * metadata). The bio itself names the file and offset (btrfs.bpf.h).
 */
static __always_inline bool file_of_btrfs(struct bio *bio,
					  struct iotrace_queue_event *q,
					  const bool cast)
{
	struct inode *inode;
	__u64 pos = 0;

	inode = iotrace_btrfs_inode(bio, &pos, cast);
	if (!inode ||
	    (IOTRACE_READ(cast, inode, i_mode) & IOTRACE_S_IFMT) != IOTRACE_S_IFREG ||
	    iotrace_btrfs_btree_inode(inode, cast) || !file_at(q, inode, pos, cast))
		return false;
	q->io.flags &= ~IOTRACE_F_FSMETA;
	return true;
}

/*
 * Memory file systems: shmem (tmpfs, System V and POSIX shared memory,
 * memfd, a MAP_SHARED anonymous mapping), hugetlbfs, ramfs. Their pages
 * never hold a block device's data, so in a bio they are a direct I/O's
 * user buffer, not the I/O's file: a database reading with O_DIRECT into
 * its shared buffer pool.
 */
#define IOTRACE_TMPFS_MAGIC 0x01021994
#define IOTRACE_HUGETLBFS_MAGIC 0x958458f6
#define IOTRACE_RAMFS_MAGIC 0x858458f6

static __always_inline bool memory_fs_inode(struct inode *inode, const bool cast)
{
	struct super_block *sb = IOTRACE_READ(cast, inode, i_sb);
	unsigned long magic = IOTRACE_READ(cast, sb, s_magic);

	return magic == IOTRACE_TMPFS_MAGIC || magic == IOTRACE_HUGETLBFS_MAGIC ||
	       magic == IOTRACE_RAMFS_MAGIC;
}

/*
 * What the bio's first page says about the I/O, into q: the file it
 * belongs to, or DIRECT (anonymous or shared memory: a user buffer of a
 * direct I/O), or FSMETA (the block device's own cache, a directory, or a
 * kernel page outside any page cache: slab, journal or xfs buffers).
 * Page-cache pages belong to their mapping's host inode; the host's own
 * i_mapping must point back to the mapping, which also rejects pages
 * whose mapping word means something else (slab pages overlay it).
 */
static __always_inline void file_of_page(struct bio *bio,
					 struct iotrace_queue_event *q,
					 const bool cast)
{
	struct bio_vec *bv = bio->bi_io_vec;
	struct address_space *mapping;
	struct page *page, *head;
	struct inode *inode;
	__u64 pos, psize;
	__u32 idx, mode;

	/* a clone (dm) shares its parent's vector from bi_idx on */
	idx = bio->bi_iter.bi_idx;
	bv += idx;
	/*
	 * bv has a variable offset now, which the verifier allows only for
	 * probe-reads or a cast; the page read so is a number to it, as
	 * everything reached from the page must be anyway: the folio offset
	 * below is pointer arithmetic, and the mapping word is tested for
	 * flag bits
	 */
	page = (struct page *)iotrace_word_at(
		(char *)bv + bpf_core_field_offset(struct bio_vec, bv_page), cast);
	if (!page)
		return;
	head = iotrace_page_head(page, cast);
	mapping = (struct address_space *)iotrace_word_at(
		(char *)head + bpf_core_field_offset(struct page, mapping), cast);
	if (!mapping) {
		q->io.flags |= IOTRACE_F_FSMETA;
		return;
	}
	/*
	 * PAGE_MAPPING_ANON (1), PAGE_MAPPING_MOVABLE (2), KSM (3). A slab
	 * page's word there is not a mapping and may have bit 0 set: xfs
	 * reads its small metadata buffers (AG headers) into kmalloc memory.
	 * Those bios carry REQ_META; a user buffer's never do.
	 */
	if ((unsigned long)mapping & 3) {
		if (q->io.flags & IOTRACE_F_META)
			q->io.flags |= IOTRACE_F_FSMETA;
		else if ((unsigned long)mapping & 1)
			q->io.flags |= IOTRACE_F_DIRECT;
		return;
	}
	inode = IOTRACE_READ(cast, mapping, host);
	if (!inode || (__u64)IOTRACE_READ(cast, inode, i_mapping) != (__u64)mapping) {
		q->io.flags |= IOTRACE_F_FSMETA;
		return;
	}
	mode = IOTRACE_READ(cast, inode, i_mode) & IOTRACE_S_IFMT;
	if (mode == IOTRACE_S_IFBLK) {
		q->file_kind = IOTRACE_FILE_BDEV;
		q->io.flags |= IOTRACE_F_FSMETA;
		return;
	}
	if (mode == IOTRACE_S_IFDIR) {
		q->file_kind = IOTRACE_FILE_DIR;
		q->io.flags |= IOTRACE_F_FSMETA;
		return;
	}
	if (mode != IOTRACE_S_IFREG) {
		q->file_kind = IOTRACE_FILE_OTHER;
		return;
	}
	if (memory_fs_inode(inode, cast)) {
		/* no file yet: btrfs's direct I/O names its own (file_of_btrfs()) */
		q->io.flags |= IOTRACE_F_DIRECT;
		return;
	}
	if (iotrace_btrfs_btree_inode(inode, cast)) {
		q->io.flags |= IOTRACE_F_FSMETA;
		return;
	}

	psize = bpf_core_type_size(struct page);
	pos = iotrace_page_index(head, cast);
	if (psize)
		pos += ((__u64)page - (__u64)head) / psize;
	pos = (pos << page_shift) + IOTRACE_READ(cast, bv, bv_offset) + bio->bi_iter.bi_bvec_done;
	file_at(q, inode, pos, cast);
}

/* The file of the bio's data, or what its first page is (file_of_page()), into q. */
static __always_inline void file_of_bio(struct bio *bio,
					struct iomap_dio *dio,
					struct iotrace_queue_event *q,
					const bool cast)
{
	if (!bio->bi_io_vec || !q->io.nr_sector)
		return;
	/*
	 * A clone (dm, md, a btrfs mirror copy: bio_alloc_clone()) has no
	 * vectors of its own (bi_vcnt 0) and reads its parent's; only reads
	 * and writes have pages to read.
	 */
	if (!bio->bi_vcnt && q->io.op != IOTRACE_OP_READ && q->io.op != IOTRACE_OP_WRITE)
		return;
	if (file_of_dio(bio, dio, q, cast))
		return;
	file_of_page(bio, q, cast);
	if (q->file_kind == IOTRACE_FILE_NONE)
		file_of_btrfs(bio, q, cast);
}

#endif /* IOTRACE_FILE_OF_BPF_H */
