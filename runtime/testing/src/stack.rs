//! Request handling on a stack deep enough for the deepest body the apiserver admits.
//!
//! kube-apiserver takes objects nested 10,000 deep, and the in-memory server walks them
//! recursively many times over (schema coercion, defaulting, validation, CEL, field sets,
//! merge patches, comparisons, clones, drops). A thread's stack (2 MiB for a Tokio worker
//! or a test) does not hold that many frames, so every poll of a request's future runs on a
//! stack of its own, as large as the deepest walk needs. The stack is reserved address
//! space: only the pages a request touches are backed by memory. (Go's goroutine stacks grow
//! on demand, which is why the apiserver needs none of this.)
//!
//! Each thread keeps its stack for the next request: mapping, protecting and unmapping one
//! per poll cost about a tenth of a write's time. The pages a deep request touched stay
//! committed until the thread ends.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// The stack each poll of a request runs on. Measured in a debug build (`tests/decode.rs`,
/// `deeply_nested_bodies`): creating, patching and applying an object 9,990 deep overflows
/// 16 MiB and fits in 48 MiB; this leaves room for heavier walks (CEL, list-maps) at the
/// 10,000 the decoder admits. Only the pages a request touches are committed.
const STACK: usize = 256 << 20;

/// A future whose every poll runs on a stack of [`STACK`] bytes.
pub(crate) struct DeepStack<F>(Pin<Box<F>>);

impl<F: Future> DeepStack<F> {
    pub(crate) fn new(future: F) -> Self {
        DeepStack(Box::pin(future))
    }
}

impl<F: Future> Future for DeepStack<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let future = self.0.as_mut();
        deep(move || future.poll(cx))
    }
}

/// Runs `f` on a stack of [`STACK`] bytes (a request the server's own controllers make).
pub(crate) fn deep<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(unix)]
    {
        // The thread's spare stack, taken while in use (a nested call maps its own); gone
        // only while the thread's locals are being destroyed.
        let Ok(stack) = reused::SPARE.try_with(|spare| spare.take()) else {
            return stacker::grow(STACK, f);
        };
        let stack = stack.unwrap_or_else(|| reused::Stack::new(STACK));
        let result = stack.run(f);
        let _ = reused::SPARE.try_with(|spare| spare.set(Some(stack)));
        result
    }
    #[cfg(not(unix))]
    stacker::grow(STACK, f)
}

#[cfg(unix)]
mod reused {
    use std::cell::Cell;
    use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

    thread_local! {
        pub(super) static SPARE: Cell<Option<Stack>> = const { Cell::new(None) };
    }

    /// A stack mapped once, with an inaccessible page on either side, so that running off
    /// it faults instead of writing over other memory.
    pub(super) struct Stack {
        mapping: *mut libc::c_void,
        len: usize,
        page: usize,
    }

    impl Stack {
        pub(super) fn new(size: usize) -> Stack {
            // SAFETY: sysconf has no preconditions.
            let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) })
                .expect("the page size is positive");
            let len = size.div_ceil(page) * page + 2 * page;
            // SAFETY: a fresh anonymous mapping, touching no existing memory.
            let mapping = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    len,
                    libc::PROT_NONE,
                    libc::MAP_PRIVATE | libc::MAP_ANON,
                    -1,
                    0,
                )
            };
            assert_ne!(
                mapping,
                libc::MAP_FAILED,
                "mapping a request stack: {}",
                std::io::Error::last_os_error()
            );
            let stack = Stack { mapping, len, page };
            // SAFETY: the range lies inside the mapping just made.
            let usable = unsafe {
                libc::mprotect(
                    stack.base().cast(),
                    stack.size(),
                    libc::PROT_READ | libc::PROT_WRITE,
                )
            };
            assert_eq!(
                usable,
                0,
                "making a request stack writable: {}",
                std::io::Error::last_os_error()
            );
            stack
        }

        fn base(&self) -> *mut u8 {
            // SAFETY: one page into the mapping, which is longer than two pages.
            unsafe { self.mapping.cast::<u8>().add(self.page) }
        }

        fn size(&self) -> usize {
            self.len - 2 * self.page
        }

        /// Runs `f` on this stack; a panic in `f` continues on the caller's.
        pub(super) fn run<R>(&self, f: impl FnOnce() -> R) -> R {
            let mut result = None;
            // SAFETY: the base is page-aligned and the size a multiple of the page size, which
            // satisfies every target's stack alignment; the callback cannot unwind, as
            // catch_unwind stops any panic inside it.
            let panic = unsafe {
                psm::on_stack(self.base(), self.size(), || {
                    catch_unwind(AssertUnwindSafe(|| result = Some(f()))).err()
                })
            };
            if let Some(panic) = panic {
                resume_unwind(panic);
            }
            result.expect("the callback returned")
        }
    }

    impl Drop for Stack {
        fn drop(&mut self) {
            // SAFETY: the whole mapping made in `new`, no longer in use: a stack is only
            // dropped off it.
            unsafe { libc::munmap(self.mapping, self.len) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::deep;

    /// Recurses `n` frames of about a kilobyte each; the sum keeps the frames from being
    /// folded away.
    fn burrow(n: u32) -> u64 {
        let frame = std::hint::black_box([n as u8; 1024]);
        match n {
            0 => u64::from(frame[0]),
            _ => u64::from(frame[1023]) + burrow(n - 1),
        }
    }

    #[test]
    fn the_deep_stack_is_reused_holds_what_a_thread_stack_cannot_and_survives_panics() {
        // 16 MiB of frames or more, far past a test thread's 2 MiB; twice, on the kept stack.
        let expected = (1..=16_384u64).map(|n| n % 256).sum::<u64>();
        assert_eq!(deep(|| burrow(16_384)), expected);
        assert_eq!(deep(|| burrow(16_384)), expected);
        let panic = std::panic::catch_unwind(|| deep(|| panic!("inside")));
        let message = panic.expect_err("the panic reaches the caller");
        assert_eq!(message.downcast_ref::<&str>(), Some(&"inside"));
        // Nested: the inner call maps a stack of its own.
        assert_eq!(deep(|| deep(|| burrow(16_384)) + 1), expected + 1);
        assert_eq!(deep(|| burrow(16_384)), expected);
    }
}
