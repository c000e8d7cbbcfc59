/* tests/test_numa.c — FUTEX2_NUMA pairs: what the kernel refuses, each a
 * clear error, through lib/numa.h's wrapper and through the designs numa,
 * numa-pin and mpol; and the node each design leaves in its pair.
 *
 * The bad input mirrors the kernel selftests' cases (futex_numa_mpol.c),
 * written anew: a pair not 8-byte aligned (EINVAL), a node neither
 * FUTEX_NO_NODE nor a possible node (EINVAL), read-only memory with the node
 * still FUTEX_NO_NODE, so the kernel must write it back (EFAULT), and
 * PROT_NONE memory (EFAULT). Each check also names the reason the wrapper
 * or the design gives (fl_futex2_numa_why), which says who caught it: the
 * alignment is caught before any syscall, the node by the design before
 * it claims or publishes anything, the kernel's errno turned into one line.
 * First, the futex contract's cases every wait-on-address backend runs
 * (waitaddr_cases.h) on each of the three wrappers. Skipped (77) with the
 * reason on a kernel without FUTEX2_NUMA. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/check.h"
#include "tests/sleepers.h"
#include "lib/clock.h"
#include "lib/numa.h"
#include "variants/negcount.h"
#include "variants/variant.h"
#include "tests/waitaddr_cases.h"

static bool says(const char *what)
{
	return strstr(fl_futex2_numa_why(), what) != NULL;
}

#define WHY(what) CHECK(says(what), "reason \"%s\" lacks \"%s\"", fl_futex2_numa_why(), what)

static void t_misaligned(void *arg)
{
	(void)arg;
	alignas(8) _Atomic uint32_t buf[4] = {0, FL_FUTEX_NO_NODE, FL_FUTEX_NO_NODE, 0};
	_Atomic uint32_t *pair = &buf[1]; /* 4 mod 8 */
	struct timespec past = fl_deadline_after_ns(0);
	CHECK(fl_futex2_numa_wait(pair, 1, &past, false, false) == EINVAL, "wait: EINVAL");
	WHY("not 8-byte aligned");
	CHECK(fl_futex2_numa_wake(pair, 1, false, false) == -EINVAL, "wake: -EINVAL");
	WHY("not 8-byte aligned");
	CHECK(atomic_load(&buf[2]) == FL_FUTEX_NO_NODE, "no node written at pair + 4: %u",
	      atomic_load(&buf[2]));
}

static void t_node_range(void *arg)
{
	(void)arg;
	uint32_t bad[] = {(uint32_t)fl_numa_nodes(), 5, 1024, 0x7fffffff};
	for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (fl_numa_node_possible(bad[i]))
			continue;
		alignas(8) _Atomic uint32_t pair[2] = {0, bad[i]};
		struct timespec past = fl_deadline_after_ns(0);
		CHECK(fl_futex2_numa_check_node(pair) == EINVAL, "check_node %u: EINVAL", bad[i]);
		WHY("nor a possible node");
		CHECK(fl_futex2_numa_wait(pair, 1, &past, false, false) == EINVAL,
		      "wait node %u: EINVAL", bad[i]);
		WHY("the kernel refused");
		CHECK(fl_futex2_numa_wake(pair, 1, true, false) == -EINVAL,
		      "wake (MPOL) node %u: -EINVAL", bad[i]);
		WHY("the kernel refused");
		CHECK(atomic_load(&pair[1]) == bad[i], "node left as it was");
	}
	alignas(8) _Atomic uint32_t ok[2] = {0, 0};
	CHECK(fl_futex2_numa_check_node(ok) == 0, "node 0 is possible");
	CHECK(fl_futex2_numa_wake(ok, 1, false, false) == 0, "wake on node 0: nobody");
}

/* mode: PROT_READ (the kernel cannot write the node back) or PROT_NONE. */
static void efault_case(int mode, const char *name)
{
	long page = sysconf(_SC_PAGESIZE);
	_Atomic uint32_t *pair = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(pair != MAP_FAILED, "mmap");
	if (pair == MAP_FAILED)
		return;
	atomic_store(&pair[0], 0);
	atomic_store(&pair[1], FL_FUTEX_NO_NODE);
	CHECK(mprotect(pair, (size_t)page, mode) == 0, "mprotect %s", name);
	struct timespec soon = fl_deadline_after_ns(1000000);
	CHECK(fl_futex2_numa_wait(pair, 0, &soon, false, false) == EFAULT, "%s wait: EFAULT",
	      name);
	WHY("EFAULT: the kernel cannot read");
	CHECK(fl_futex2_numa_wake(pair, 1, false, false) == -EFAULT, "%s wake: -EFAULT", name);
	WHY("read-only memory");
	CHECK(fl_futex2_numa_wake(pair, 1, true, true) == -EFAULT, "%s shared MPOL wake", name);
	munmap(pair, (size_t)page);
}

static void t_efault(void *arg)
{
	(void)arg;
	efault_case(PROT_READ, "read-only");
	efault_case(PROT_NONE, "PROT_NONE");
}

/* Through a design: init on a misaligned state; a node corrupted in the
 * state refused by post before it adds (value unchanged) and by timedwait
 * before it sleeps (no token, value unchanged). */
static void t_design_errors(void *arg)
{
	const struct fl_variant *v = arg;
	alignas(16) unsigned char buf[64];
	memset(buf, 0, sizeof buf);
	CHECK(v->init(buf + 4, 0, 0) == EINVAL, "%s init misaligned: EINVAL", v->name);
	WHY("not 8-byte aligned");
	CHECK(v->init(buf, 0, 0) == 0, "%s init", v->name);
	struct fl_negcount *s = (void *)buf;
	uint32_t was = atomic_load(&s->node);
	atomic_store(&s->node, 5 < fl_numa_nodes() ? FL_FUTEX_NO_NODE - 1 : 5);
	fl_futex2_numa_note("%s", "");
	CHECK(v->post(buf, 1) == EINVAL, "%s post on a bad node: EINVAL", v->name);
	WHY("names node"); /* the design's check, not the kernel's refusal */
	CHECK(v->getvalue(buf) == 0, "%s post refused: value %d", v->name, v->getvalue(buf));
	fl_futex2_numa_note("%s", "");
	struct timespec dl = fl_deadline_after_ns(20000000);
	CHECK(v->timedwait(buf, &dl) == EINVAL, "%s timedwait on a bad node: EINVAL", v->name);
	WHY("names node");
	CHECK(v->trywait(buf) == EAGAIN, "%s no token left behind", v->name);
	atomic_store(&s->node, was);
	CHECK(v->post(buf, 1) == 0 && v->getvalue(buf) == 1, "%s repaired: post", v->name);
	v->destroy(buf);
}

/* The node each design leaves: numa FUTEX_NO_NODE until the kernel writes
 * the sleeper's (or the first poster's) node back; numa-pin the creator's
 * from init on; mpol FUTEX_NO_NODE, the page preferring the creator's
 * node, the policy's node latched by the first call. */
static void t_design_node(void *arg)
{
	const struct fl_variant *v = arg;
	alignas(16) unsigned char buf[64];
	CHECK(v->init(buf, 0, 0) == 0, "%s init", v->name);
	struct fl_negcount *s = (void *)buf;
	uint32_t here = fl_numa_this_node(), node = atomic_load(&s->node);
	bool pin = strcmp(v->name, "numa-pin") == 0;
	CHECK(pin ? fl_numa_node_possible(node) : node == FL_FUTEX_NO_NODE,
	      "%s node at init: %u", v->name, node);
	if (strcmp(v->name, "mpol") == 0) {
		uint32_t pref = FL_FUTEX_NO_NODE;
		int e = fl_numa_preferred_at(buf, &pref);
		CHECK(e == 0 && fl_numa_node_possible(pref), "mpol: page prefers a node (%d, %u)",
		      e, pref);
	}
	struct timespec dl = fl_deadline_after_ns(5000000);
	CHECK(v->timedwait(buf, &dl) == ETIMEDOUT, "%s timed out", v->name);
	node = atomic_load(&s->node);
	CHECK(fl_numa_node_possible(node), "%s node after a sleep: %u (written back)", v->name,
	      node);
	if (fl_numa_nodes() == 1)
		CHECK(node == here, "%s one node: node %u", v->name, node);
	v->destroy(buf);
	CHECK(v->init(buf, 0, 0) == 0 && v->post(buf, 1) == 0, "%s init, post", v->name);
	CHECK(fl_numa_node_possible(atomic_load(&s->node)),
	      "%s node settled by the first post: %u", v->name, atomic_load(&s->node));
	v->destroy(buf);
}

/* The handoff through a sleep carries the poster's writes: a consumer
 * asleep in the design's wait (its claim in count, its sleep on the pair),
 * a producer that writes a plain payload and posts; the consumer reads the
 * payload after its wait returns. Its only happens-before edge is
 * negcount's grant add (release) -> take_grant (acquire), the ORDERING the
 * designs inherit: under TSan, weakening either side is a reported data
 * race on `payload` (seen: negcount.c's grant add made relaxed, build-tsan's
 * test_numa reports "data race ... in consumer" and exits 66). */
struct handoff {
	const struct fl_variant *v;
	void *s;
	int payload; /* plain on purpose */
	int seen;
	_Atomic pid_t tid[1];
};

static void *consumer(void *p)
{
	struct handoff *h = p;
	atomic_store(&h->tid[0], (pid_t)gettid());
	int r;
	while ((r = h->v->wait(h->s)) == EINTR)
		;
	h->seen = r == 0 ? h->payload : -1;
	return NULL;
}

static void t_handoff(void *arg)
{
	const struct fl_variant *v = arg;
	alignas(16) unsigned char buf[64];
	CHECK(v->init(buf, 0, 0) == 0, "%s init", v->name);
	for (int i = 1; i <= 10; i++) {
		struct handoff h = {.v = v, .s = buf};
		pthread_t t;
		pthread_create(&t, NULL, consumer, &h);
		while (!atomic_load(&h.tid[0]))
			sched_yield();
		CHECK(wait_sleeping(h.tid, 1, 5000), "%s round %d: consumer asleep", v->name, i);
		h.payload = 1000 + i;
		CHECK(v->post(buf, 1) == 0, "%s post", v->name);
		pthread_join(t, NULL);
		CHECK(h.seen == 1000 + i, "%s round %d: consumer saw %d", v->name, i, h.seen);
	}
	v->destroy(buf);
}

int main(void)
{
	const char *why = fl_futex2_numa_unavailable();
	if (why) {
		printf("SKIP numa: %s\n", why);
		return 77;
	}
	/* the contract's cases on each FUTEX2_NUMA wrapper (waitaddr_cases.h) */
	const struct fl_waitaddr *was[] = { &fl_wa_futex2_numa, &fl_wa_futex2_numa_pinned,
					    &fl_wa_futex2_mpol };
	for (int i = 0; i < 3; i++) {
		WA = was[i];
		atomic_store(&wa_pair[1], FL_FUTEX_NO_NODE);
		atomic_store(&wa_gate_pair[1], FL_FUTEX_NO_NODE);
		printf("# %s\n", WA->name);
		run_waitaddr_cases(WA_EINTR | WA_SHARED);
	}
	run_test("misaligned_pair", t_misaligned, NULL, 20);
	run_test("node_out_of_range", t_node_range, NULL, 20);
	run_test("read_only_and_prot_none", t_efault, NULL, 20);
	const char *names[] = {"numa", "numa-pin", "mpol"};
	for (int i = 0; i < 3; i++) {
		const struct fl_variant *v = fl_variant_find(names[i]);
		CHECK(v != NULL, "%s registered", names[i]);
		if (!v)
			continue;
		if (v->unavailable && (why = v->unavailable())) {
			printf("SKIP %s: %s\n", names[i], why);
			tests_skipped++;
			continue;
		}
		printf("# %s\n", names[i]);
		run_test("design_errors", t_design_errors, (void *)v, 20);
		run_test("design_node", t_design_node, (void *)v, 20);
		run_test("handoff_payload", t_handoff, (void *)v, 60);
	}
	return tests_done("numa");
}
