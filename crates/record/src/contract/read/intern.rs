//! One shared copy of the texts that repeat across report entries (bench
//! names, suites, devices, argument names): an entry holds an `Arc<str>` of
//! the reading thread's copy instead of a string of its own. At 100,000
//! entries that is eight allocations an entry fewer, and about a third of
//! the memory.

use rustc_hash::FxHashSet;
use std::cell::RefCell;
use std::sync::Arc;

/// The most texts a thread keeps: past it the set starts afresh (entries
/// keep theirs), so that texts that do not repeat cannot grow it for ever.
const MOST: usize = 4096;

thread_local! {
    /// Hashed with FxHash: the texts are short and come from report files,
    /// and SipHash's protection against chosen collisions costs a tenth of
    /// the reading time here.
    static TEXTS: RefCell<FxHashSet<Arc<str>>> = RefCell::new(FxHashSet::default());
}

/// The shared copy of `text`.
pub fn intern(text: &str) -> Arc<str> {
    TEXTS.with_borrow_mut(|texts| {
        if let Some(shared) = texts.get(text) {
            return shared.clone();
        }
        if texts.len() >= MOST {
            texts.clear();
        }
        let shared: Arc<str> = Arc::from(text);
        texts.insert(shared.clone());
        shared
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_copy_of_each_text_and_a_bounded_set() {
        let (a, b) = (intern("vae"), intern(&String::from("vae")));
        assert!(Arc::ptr_eq(&a, &b));
        for i in 0..MOST + 10 {
            intern(&i.to_string());
        }
        assert!(TEXTS.with_borrow(|t| t.len()) <= MOST);
        assert_eq!(&*intern("vae"), "vae", "a text asked again after a clear");
    }
}
