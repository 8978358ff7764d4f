//! Request handling on a stack deep enough for the deepest body the apiserver admits.
//!
//! kube-apiserver takes objects nested 10,000 deep, and the in-memory server walks them
//! recursively many times over (schema coercion, defaulting, validation, CEL, field sets,
//! merge patches, comparisons, clones, drops). A thread's stack (2 MiB for a Tokio worker
//! or a test) does not hold that many frames, so every poll of a request's future runs on a
//! stack of its own, as large as the deepest walk needs. The stack is reserved address
//! space: only the pages a request touches are backed by memory. (Go's goroutine stacks grow
//! on demand, which is why the apiserver needs none of this.)

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
        stacker::grow(STACK, move || future.poll(cx))
    }
}

/// Runs `f` on a stack of [`STACK`] bytes (a request the server's own controllers make).
pub(crate) fn deep<R>(f: impl FnOnce() -> R) -> R {
    stacker::grow(STACK, f)
}
