//! One panel per file; each takes typed properties and draws them, and sends
//! what the user does back as a [`crate::state::Msg`].

pub mod admin;
pub mod big_chart;
pub mod big_cluster;
pub mod broker_card;
pub mod console;
pub mod controls;
pub mod diagram;
pub mod event_queue;
pub mod help;
pub mod invariants;
pub mod kafka_text;
pub mod legacy;
pub mod lesson_panel;
pub mod lesson_picker;
pub mod messages;
pub mod network;
pub mod partition_table;
pub mod term;
pub mod whatif;
pub mod why;
pub mod znode_tree;
