//! The engines one test file makes share what one run may hold (rule
//! H10): at most [`MAX_LIVE`] alive at once, their games' VMs within one
//! memory cap between them, and a history of [`HISTORY_CAP`] bytes each.
//! A test that keeps making engines (and keeping them) is refused in one
//! line instead of growing the host without end.

use crate::Refusal;
use std::cell::RefCell;
use std::rc::Rc;

use mlua::{Lua, WeakLua};

use super::vm::DEFAULT_MEMORY_CAP;

/// The most engines one test file holds alive at once.
pub const MAX_LIVE: usize = 16;

/// What the games of one test file's engines may hold between them.
pub const SHARED_MEMORY: usize = DEFAULT_MEMORY_CAP;

/// The least an engine's game starts with: below it, engine.new refuses.
const LEAST: usize = 16 << 20;

/// The history each engine of a test keeps (its share of a run's).
pub const HISTORY_CAP: usize = crate::history::DEFAULT_CAP / MAX_LIVE;

/// The live engines of one test file, kept in its VM's app data.
#[derive(Default)]
struct Pool {
    live: Vec<(u64, WeakLua)>,
    made: u64,
}

/// One engine's place in its test file's pool; leaving it (the engine
/// collected) frees the place.
pub struct Member {
    pool: Rc<RefCell<Pool>>,
    id: u64,
}

impl Member {
    /// Takes a place for a new engine in the pool of the test VM `lua`,
    /// collecting engines the test no longer reaches first when it is full.
    /// Returns it and the memory the new engine's game may start with.
    ///
    /// # Errors
    /// [`MAX_LIVE`] engines are still alive, or those alive hold so much
    /// memory that a new one would not have [`LEAST`].
    pub fn join(lua: &Lua) -> Result<(Member, usize), Refusal> {
        if lua.app_data_ref::<Rc<RefCell<Pool>>>().is_none() {
            lua.set_app_data(Rc::new(RefCell::new(Pool::default())));
        }
        let pool = Rc::clone(&lua.app_data_ref::<Rc<RefCell<Pool>>>().expect("set above"));
        let prune = |pool: &Rc<RefCell<Pool>>| {
            let mut p = pool.borrow_mut();
            p.live.retain(|(_, game)| game.try_upgrade().is_some());
            p.live.len()
        };
        if prune(&pool) >= MAX_LIVE {
            // Engines the test let go of may not have been collected yet
            // (the VM does not know what they hold).
            let _ = lua.gc_collect();
            let _ = lua.gc_collect();
        }
        if prune(&pool) >= MAX_LIVE {
            return Err(refuse!(
                "{MAX_LIVE} engines are alive, the most one test file holds at once (H10); \
                 let go of the ones you are done with"
            ));
        }
        let id = {
            let mut p = pool.borrow_mut();
            p.made += 1;
            p.made
        };
        let member = Member { pool, id };
        let share = member.share();
        if share < LEAST {
            return Err(exhausted(share));
        }
        Ok((member, share))
    }

    /// Counts the game VM `game` as this member's.
    pub fn bind(&self, game: &Lua) {
        self.pool.borrow_mut().live.push((self.id, game.weak()));
    }

    /// The memory this member's game may hold now: the shared cap less
    /// what the other engines' games hold.
    pub fn share(&self) -> usize {
        let others: usize = self
            .pool
            .borrow()
            .live
            .iter()
            .filter(|(id, _)| *id != self.id)
            .filter_map(|(_, weak)| weak.try_upgrade())
            .map(|lua| lua.used_memory())
            .sum();
        SHARED_MEMORY.saturating_sub(others)
    }
}

/// Says that the engines alive leave a new one only `share` bytes of
/// what they share (H10).
pub fn exhausted(share: usize) -> Refusal {
    refuse!(
        "the engines alive hold {} of the {} one test file's engines share (H10); \
         let go of the ones you are done with",
        crate::assets::bytes(SHARED_MEMORY.saturating_sub(share) as u64),
        crate::assets::bytes(SHARED_MEMORY as u64)
    )
}

impl Drop for Member {
    fn drop(&mut self) {
        if let Ok(mut pool) = self.pool.try_borrow_mut() {
            pool.live.retain(|(id, _)| *id != self.id);
        }
    }
}
