//! One panel per file; each takes typed properties and draws them.

pub mod broker_card;
pub mod controller_znode;
