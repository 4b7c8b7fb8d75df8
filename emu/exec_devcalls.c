/* exec_devcalls — the device runtime's calls that PTX makes with .param buffers
 * (vprintf, cudaGraphSetConditional, malloc, free, __assertfail): each lane's arguments
 * read from its frame's parameter space, lane by lane.
 */
#include "exec_devcalls.h"

#include <errno.h>
#include <string.h>

int devcall_exec(struct block *b, struct warp *w, const struct ptx_insn *in, uint32_t m,
		 struct frame *fr)
{
	int rc = 0;
	switch (in->op) {
	CASE(VPRINTF) {
		const struct ptx_module *mod = b->L->m;
		uint32_t o0 = mod->callargs[in->off], o1 = mod->callargs[in->off + 1];
		size_t fs = fr->f->fparam_size;
		for (uint32_t mm = m; mm; mm &= mm - 1) {
			unsigned l = (unsigned)__builtin_ctz(mm);
			uint64_t fp, ap;
			memcpy(&fp, fr->fparam + l * fs + o0, 8);
			memcpy(&ap, fr->fparam + l * fs + o1, 8);
			int nargs = 0;
			if (do_printf(b, w, l, in, fp, ap, &nargs)) {
				rc = -EFAULT;
				goto out;
			}
			if (in->d[0] != PTX_NOPC) {
				int32_t r = nargs;
				memcpy(fr->fparam + l * fs + in->d[0], &r, 4);
			}
		}
		NEXT;
	}
	CASE(SETCONDITIONAL) {
		/* cudaGraphSetConditional(handle, value): the handle is the address of
		 * 4 bytes of device memory (cudart_graph.c); the last lane's value wins */
		const struct ptx_module *mod = b->L->m;
		size_t fs = fr->f->fparam_size;
		for (uint32_t mm = m; in->ns >= 2 && mm; mm &= mm - 1) {
			unsigned l = (unsigned)__builtin_ctz(mm);
			uint64_t h;
			uint32_t v;
			memcpy(&h, fr->fparam + l * fs + mod->callargs[in->off], 8);
			memcpy(&v, fr->fparam + l * fs + mod->callargs[in->off + 1], 4);
			char *p = mem_at(b, w, l, in, SP_GLOBAL, h, 4, 1);
			if (!p) {
				rc = -EFAULT;
				goto out;
			}
			memcpy(p, &v, 4);
		}
		NEXT;
	}
	CASE(MALLOC) CASE(FREE) {
		/* malloc(size) / free(p) of the device heap (exec_memory.c), lane by lane */
		const struct ptx_module *mod = b->L->m;
		size_t fs = fr->f->fparam_size;
		for (uint32_t mm = m; in->ns >= 1 && mm; mm &= mm - 1) {
			unsigned l = (unsigned)__builtin_ctz(mm);
			uint64_t x;
			memcpy(&x, fr->fparam + l * fs + mod->callargs[in->off], 8);
			if (in->op == OP_FREE && heap_free(w, x) != 0) {
				rc = fault_set(b, w, l, in, EMU_FAULT_OOB, -EFAULT,
					       "free(0x%llx): not a block that malloc or new in a "
					       "kernel returned, or freed already",
					       (unsigned long long)x);
				goto out;
			}
			if (in->op == OP_MALLOC) {
				uint64_t p = heap_malloc(x);
				if (in->d[0] != PTX_NOPC)
					memcpy(fr->fparam + l * fs + in->d[0], &p, 8);
			}
		}
		NEXT;
	}
	CASE(ASSERTFAIL) {
		const struct ptx_module *mod = b->L->m;
		unsigned l = (unsigned)__builtin_ctz(m);
		size_t fs = fr->f->fparam_size;
		uint64_t msgp = 0, filep = 0;
		uint32_t line = 0;
		char msg[256] = "?", file[256] = "?";
		if (in->ns >= 3) {
			memcpy(&msgp, fr->fparam + l * fs + mod->callargs[in->off], 8);
			memcpy(&filep, fr->fparam + l * fs + mod->callargs[in->off + 1], 8);
			memcpy(&line, fr->fparam + l * fs + mod->callargs[in->off + 2], 4);
			read_cstr(b, w, l, in, msgp, msg, sizeof msg);
			b->faulted = 0;
			read_cstr(b, w, l, in, filep, file, sizeof file);
			b->faulted = 0;
		}
		rc = fault_set(b, w, l, in, EMU_FAULT_TRAP, -ECANCELED,
			       "device-side assertion `%s' failed (%s:%u)", msg, file, line);
		goto out;
	}
	default:
		break;
	}
out:
	return rc;
}
