/* lib/cpu.h — the spin-wait hint. */
#ifndef FUTEXLAB_CPU_H
#define FUTEXLAB_CPU_H

static inline void fl_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

#endif
