// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarf-walk: the floor under any DWARF reader.
 *
 * Visits every DIE of every unit of an ELF file with libdw and decodes every
 * attribute by its form (strings, constants, addresses, flags, blocks, and
 * references followed to their DIE), then prints what it counted. Nothing is
 * built from what is read. The encoder does this much work and more, so the
 * time this takes is what `btfcanon encode` is compared to (BENCH.md).
 *
 * Threads work the way the encoder's do: the file is mapped once (one Elf)
 * and the unit list read once; each worker owns its own Dwarf handle over
 * that Elf (libdw 0.188 is not built thread-safe), made before the threads
 * start, and its own counters; the only shared state is an atomic unit
 * cursor and the first-error slot. Cost: one pass over .debug_info and the
 * string, address and abbreviation sections, split between the threads;
 * each handle keeps its own abbreviation and unit caches.
 *
 *   dwarf-walk [-j N] [-l] FILE
 *
 * -j N  worker threads (default: online CPUs); -l  list the units first.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <libelf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A unit to walk: where its first DIE is, and which section holds it. */
struct unit_ref {
	Dwarf_Off die_off;
	bool in_debug_types;	/* DWARF 4 type unit in .debug_types */
};

struct walk_counts {
	uint64_t units;
	uint64_t dies;
	uint64_t attrs;
	uint64_t strings;
	uint64_t constants;
	uint64_t refs;
	uint64_t addrs;
	uint64_t flags;
	uint64_t blocks;
	uint64_t other;		/* forms decoded by no call here */
	uint64_t bad;		/* attributes libdw could not decode */
	uint64_t max_depth;
};

struct walk {
	const char *path;
	const struct unit_ref *units;
	size_t nr_units;
	atomic_size_t unit_cursor;
	atomic_int first_err;	/* 0 or the first negative errno */
};

struct walker {
	struct walk *walk;
	Dwarf *dbg;		/* this worker's own handle */
	pthread_t thread;
	struct walk_counts counts;
};

static void walk_set_error(struct walk *walk, int err)
{
	int none = 0;

	atomic_compare_exchange_strong(&walk->first_err, &none, err);
}

/* Decodes one attribute with the libdw call its form class calls for. */
static int decode_attr(Dwarf_Attribute *attr, void *arg)
{
	struct walk_counts *counts = arg;
	Dwarf_Word uval;
	Dwarf_Sword sval;
	Dwarf_Addr addr;
	Dwarf_Block block;
	Dwarf_Die ref_die;
	bool flag;
	bool ok;

	counts->attrs++;
	switch (dwarf_whatform(attr)) {
	case DW_FORM_string:
	case DW_FORM_strp:
	case DW_FORM_line_strp:
	case DW_FORM_strp_sup:
	case DW_FORM_strx:
	case DW_FORM_strx1:
	case DW_FORM_strx2:
	case DW_FORM_strx3:
	case DW_FORM_strx4:
	case DW_FORM_GNU_str_index:
	case DW_FORM_GNU_strp_alt:
		ok = dwarf_formstring(attr) != NULL;
		counts->strings++;
		break;
	case DW_FORM_ref1:
	case DW_FORM_ref2:
	case DW_FORM_ref4:
	case DW_FORM_ref8:
	case DW_FORM_ref_udata:
	case DW_FORM_ref_addr:
	case DW_FORM_ref_sig8:
	case DW_FORM_ref_sup4:
	case DW_FORM_ref_sup8:
	case DW_FORM_GNU_ref_alt:
		ok = dwarf_formref_die(attr, &ref_die) != NULL;
		counts->refs++;
		break;
	case DW_FORM_sdata:
	case DW_FORM_implicit_const:
		ok = dwarf_formsdata(attr, &sval) == 0;
		counts->constants++;
		break;
	case DW_FORM_data1:
	case DW_FORM_data2:
	case DW_FORM_data4:
	case DW_FORM_data8:
	case DW_FORM_udata:
	case DW_FORM_sec_offset:
	case DW_FORM_loclistx:
	case DW_FORM_rnglistx:
		ok = dwarf_formudata(attr, &uval) == 0;
		counts->constants++;
		break;
	case DW_FORM_addr:
	case DW_FORM_addrx:
	case DW_FORM_addrx1:
	case DW_FORM_addrx2:
	case DW_FORM_addrx3:
	case DW_FORM_addrx4:
	case DW_FORM_GNU_addr_index:
		ok = dwarf_formaddr(attr, &addr) == 0;
		counts->addrs++;
		break;
	case DW_FORM_flag:
	case DW_FORM_flag_present:
		ok = dwarf_formflag(attr, &flag) == 0;
		counts->flags++;
		break;
	case DW_FORM_block:
	case DW_FORM_block1:
	case DW_FORM_block2:
	case DW_FORM_block4:
	case DW_FORM_exprloc:
	case DW_FORM_data16:
		ok = dwarf_formblock(attr, &block) == 0;
		counts->blocks++;
		break;
	default:
		ok = true;
		counts->other++;
		break;
	}
	if (!ok)
		counts->bad++;
	return DWARF_CB_OK;
}

/*
 * Walks the DIE tree under the unit DIE in pre-order without recursion:
 * dwarf_child() goes down, dwarf_siblingof() across, and a stack of the
 * open parents brings us back up.
 */
static int walk_unit(Dwarf_Die *unit_die, struct walk_counts *counts)
{
	Dwarf_Die *stack = NULL, die = *unit_die, next;
	size_t depth = 0, cap = 0;
	int ret;

	for (;;) {
		counts->dies++;
		if (dwarf_getattrs(&die, decode_attr, counts, 0) < 0)
			goto fail;
		if (dwarf_haschildren(&die) > 0) {
			if (depth == cap) {
				size_t grown_cap = cap ? cap * 2 : 64;
				Dwarf_Die *grown = realloc(stack,
						grown_cap * sizeof(*grown));

				if (!grown) {
					free(stack);
					return -ENOMEM;
				}
				stack = grown;
				cap = grown_cap;
			}
			stack[depth++] = die;
			if (depth > counts->max_depth)
				counts->max_depth = depth;
			ret = dwarf_child(&stack[depth - 1], &die);
			if (ret == 0)
				continue;
			if (ret < 0)
				goto fail;
			depth--;	/* "has children" but none: move on */
		}
		/* the next sibling here, or of the nearest open ancestor */
		for (;;) {
			if (!depth) {
				/* back at the unit DIE: done */
				free(stack);
				return 0;
			}
			ret = dwarf_siblingof(&die, &next);
			if (ret < 0)
				goto fail;
			if (ret == 0) {
				die = next;
				break;
			}
			die = stack[--depth];
		}
	}
fail:
	free(stack);
	return -EINVAL;
}

static void *walker_main(void *arg)
{
	struct walker *w = arg;
	struct walk *walk = w->walk;
	Dwarf *dbg = w->dbg;
	size_t i;
	int err;

	while ((i = atomic_fetch_add(&walk->unit_cursor, 1)) < walk->nr_units) {
		const struct unit_ref *u = &walk->units[i];
		Dwarf_Die unit_die, *die;

		if (atomic_load_explicit(&walk->first_err, memory_order_relaxed))
			break;
		die = u->in_debug_types ?
		      dwarf_offdie_types(dbg, u->die_off, &unit_die) :
		      dwarf_offdie(dbg, u->die_off, &unit_die);
		if (!die) {
			fprintf(stderr, "dwarf-walk: %s: unit DIE at 0x%llx: %s\n",
				walk->path, (unsigned long long)u->die_off,
				dwarf_errmsg(-1));
			walk_set_error(walk, -EINVAL);
			break;
		}
		err = walk_unit(die, &w->counts);
		if (err) {
			fprintf(stderr, "dwarf-walk: %s: unit at 0x%llx: %s\n",
				walk->path, (unsigned long long)u->die_off,
				err == -ENOMEM ? "out of memory" : dwarf_errmsg(-1));
			walk_set_error(walk, err);
			break;
		}
		w->counts.units++;
	}
	return NULL;
}

/*
 * Lists the units of .debug_info, then the DWARF 4 type units of
 * .debug_types. Returns 0 and fills *units, or a negative errno.
 */
static int list_units(Dwarf *dbg, struct unit_ref **units, size_t *nr_units)
{
	struct unit_ref *list = NULL;
	size_t nr = 0, cap = 0;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		Dwarf_Off off = 0, next;
		uint64_t sig;
		size_t hsize;

		while (dwarf_next_unit(dbg, off, &next, &hsize, NULL, NULL,
				       NULL, NULL, pass ? &sig : NULL,
				       NULL) == 0) {
			if (nr == cap) {
				size_t grown_cap = cap ? cap * 2 : 1024;
				struct unit_ref *grown = realloc(list,
						grown_cap * sizeof(*grown));

				if (!grown) {
					free(list);
					return -ENOMEM;
				}
				list = grown;
				cap = grown_cap;
			}
			list[nr].die_off = off + hsize;
			list[nr].in_debug_types = pass;
			nr++;
			off = next;
		}
	}
	*units = list;
	*nr_units = nr;
	return 0;
}

static void print_unit_list(Dwarf *dbg, const struct unit_ref *units,
			    size_t nr_units)
{
	size_t i;

	for (i = 0; i < nr_units; i++) {
		Dwarf_Die mem, *die;
		const char *name = NULL;

		die = units[i].in_debug_types ?
		      dwarf_offdie_types(dbg, units[i].die_off, &mem) :
		      dwarf_offdie(dbg, units[i].die_off, &mem);
		if (die)
			name = dwarf_diename(die);
		printf("unit %zu at 0x%llx%s: %s\n", i,
		       (unsigned long long)units[i].die_off,
		       units[i].in_debug_types ? " (.debug_types)" : "",
		       name ? name : "(unnamed)");
	}
}

static void add_counts(struct walk_counts *sum, const struct walk_counts *c)
{
	sum->units += c->units;
	sum->dies += c->dies;
	sum->attrs += c->attrs;
	sum->strings += c->strings;
	sum->constants += c->constants;
	sum->refs += c->refs;
	sum->addrs += c->addrs;
	sum->flags += c->flags;
	sum->blocks += c->blocks;
	sum->other += c->other;
	sum->bad += c->bad;
	if (c->max_depth > sum->max_depth)
		sum->max_depth = c->max_depth;
}

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: dwarf-walk [-j N] [-l] FILE\n"
		   "Visits every DIE of FILE with libdw, decodes every attribute\n"
		   "and prints the counts.\n"
		   "  -j N  worker threads (default: online CPUs)\n"
		   "  -l    list the units first\n");
}

int main(int argc, char **argv)
{
	struct walk walk = { 0 };
	struct walk_counts sum = { 0 };
	struct walker *walkers = NULL;
	struct unit_ref *units = NULL;
	bool list = false;
	long nr_threads = sysconf(_SC_NPROCESSORS_ONLN);
	size_t nr_units = 0;
	double t0, t_list, t_walk;
	Elf *elf = NULL;
	long i, started = 0;
	int opt, fd, err = 0;
	char *end;

	while ((opt = getopt(argc, argv, "j:lh")) != -1) {
		switch (opt) {
		case 'j':
			errno = 0;
			nr_threads = strtol(optarg, &end, 10);
			if (errno || *end || nr_threads < 1 || nr_threads > 1024) {
				fprintf(stderr, "dwarf-walk: -j: '%s' is not a thread count (1-1024)\n",
					optarg);
				return 2;
			}
			break;
		case 'l':
			list = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	if (nr_threads < 1)
		nr_threads = 1;
	walk.path = argv[optind];

	t0 = now_sec();
	fd = open(walk.path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "dwarf-walk: %s: %s\n", walk.path,
			strerror(errno));
		return 1;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	walkers = calloc(nr_threads, sizeof(*walkers));
	if (!elf || !walkers) {
		fprintf(stderr, "dwarf-walk: %s: %s\n", walk.path,
			elf ? "out of memory" : elf_errmsg(-1));
		err = -EINVAL;
		goto out;
	}
	/* one handle per worker, all made here: libdw is not thread-safe */
	for (i = 0; i < nr_threads; i++) {
		walkers[i].walk = &walk;
		walkers[i].dbg = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
		if (!walkers[i].dbg) {
			fprintf(stderr, "dwarf-walk: %s: %s\n", walk.path,
				dwarf_errmsg(-1));
			err = -EINVAL;
			goto out;
		}
	}
	err = list_units(walkers[0].dbg, &units, &nr_units);
	if (err) {
		fprintf(stderr, "dwarf-walk: %s: out of memory\n", walk.path);
		goto out;
	}
	if (list)
		print_unit_list(walkers[0].dbg, units, nr_units);
	t_list = now_sec();

	walk.units = units;
	walk.nr_units = nr_units;
	for (i = 0; i < nr_threads; i++) {
		err = -pthread_create(&walkers[i].thread, NULL, walker_main,
				      &walkers[i]);
		if (err) {
			fprintf(stderr, "dwarf-walk: creating a thread: %s\n",
				strerror(-err));
			walk_set_error(&walk, err);
			break;
		}
		started++;
	}
	for (i = 0; i < started; i++) {
		pthread_join(walkers[i].thread, NULL);
		add_counts(&sum, &walkers[i].counts);
	}
	t_walk = now_sec();
	err = err ? err : atomic_load(&walk.first_err);

	printf("file:       %s\n", walk.path);
	printf("threads:    %ld\n", nr_threads);
	printf("units:      %zu listed, %llu walked\n", nr_units,
	       (unsigned long long)sum.units);
	printf("DIEs:       %llu (deepest nesting %llu)\n",
	       (unsigned long long)sum.dies, (unsigned long long)sum.max_depth);
	printf("attributes: %llu: %llu strings, %llu constants, %llu refs, "
	       "%llu addresses, %llu flags, %llu blocks, %llu other; %llu undecodable\n",
	       (unsigned long long)sum.attrs, (unsigned long long)sum.strings,
	       (unsigned long long)sum.constants, (unsigned long long)sum.refs,
	       (unsigned long long)sum.addrs, (unsigned long long)sum.flags,
	       (unsigned long long)sum.blocks, (unsigned long long)sum.other,
	       (unsigned long long)sum.bad);
	printf("time:       list %.3f s, walk %.3f s\n", t_list - t0,
	       t_walk - t_list);
out:
	for (i = 0; walkers && i < nr_threads; i++)
		dwarf_end(walkers[i].dbg);
	free(walkers);
	free(units);
	elf_end(elf);
	close(fd);
	return err ? 1 : 0;
}
