//! Browser tests: the app and its components in headless Chromium
//! (wasm-bindgen-test), asserting on the rendered DOM after simulated clicks.
//! Run by `cargo xtask test` (stage "browser").
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlElement};

wasm_bindgen_test_configure!(run_in_browser);

/// A fresh element on the page with the app mounted in it.
fn mount() -> Element {
    let doc = web_sys::window()
        .and_then(|w| w.document())
        .expect("a document");
    let root = doc.create_element("div").expect("a div");
    doc.body()
        .expect("a body")
        .append_child(&root)
        .expect("appended");
    // The handle is leaked on purpose: the app lives as long as the test page.
    std::mem::forget(kcsim_web::mount(root.clone()));
    root
}

/// Poll until `f` returns Some, or fail after `ms` of waiting. Yew renders
/// asynchronously after mount and after events.
async fn wait_for<T>(what: &str, ms: u32, mut f: impl FnMut() -> Option<T>) -> T {
    let mut waited = 0;
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(waited < ms, "{what}: not within {ms} ms");
        gloo_timers::future::TimeoutFuture::new(10).await;
        waited += 10;
    }
}

fn text(root: &Element, selector: &str) -> Option<String> {
    root.query_selector(selector).ok()??.text_content()
}

fn click(root: &Element, label: &str) {
    let sel = format!("button[aria-label=\"{label}\"]");
    let b = root
        .query_selector(&sel)
        .ok()
        .flatten()
        .unwrap_or_else(|| panic!("button {label:?}"));
    b.dyn_into::<HtmlElement>()
        .expect("an HTML element")
        .click();
}

fn count(root: &Element, selector: &str) -> u32 {
    root.query_selector_all(selector)
        .map(|l| l.length())
        .unwrap_or(0)
}

#[wasm_bindgen_test]
async fn the_app_draws_the_brokers_and_the_controller_znode() {
    // Kafka: KafkaController.elect — one broker holds /controller and every
    // broker's activeControllerId names it.
    let root = mount();
    wait_for("four broker cards", 5000, || {
        (count(&root, "article.broker") == 4).then_some(())
    })
    .await;
    let json = text(&root, ".controller-json").expect("/controller shown");
    assert!(json.starts_with(r#"{"version":1,"brokerid":"#), "{json}");
    assert_eq!(
        count(&root, "article.broker.controller"),
        1,
        "exactly one broker is marked controller"
    );
    let id = root
        .query_selector("article.broker.controller")
        .unwrap()
        .unwrap()
        .get_attribute("data-broker")
        .unwrap();
    assert!(
        json.contains(&format!("\"brokerid\":{id},")),
        "{json} names broker {id}"
    );
    let believed = root.query_selector_all(".active-controller-id").unwrap();
    for i in 0..believed.length() {
        assert_eq!(believed.get(i).unwrap().text_content().unwrap(), id);
    }
}

#[wasm_bindgen_test]
async fn broker_card_kill_button_kills_that_broker() {
    // Kafka: kill -9 — the process is gone, its ZooKeeper session lingers.
    let root = mount();
    wait_for("cards", 5000, || {
        (count(&root, "article.broker") == 4).then_some(())
    })
    .await;
    click(&root, "Kill broker 3 (kill -9)");
    let status = wait_for("broker 3 dead", 3000, || {
        let s = text(&root, "article.broker[data-broker=\"3\"] .broker-status")?;
        (s == "dead").then_some(s)
    })
    .await;
    assert_eq!(status, "dead");
    let countdown = text(
        &root,
        "article.broker[data-broker=\"3\"] .session-countdown",
    )
    .expect("countdown");
    assert!(
        countdown.contains("/brokers/ids/3 lingers") && countdown.contains("session expires in"),
        "kill -9 leaves the session, and the page says so: {countdown}"
    );
    // The start button is enabled now, kill is not.
    let kill = root
        .query_selector("button[aria-label=\"Kill broker 3 (kill -9)\"]")
        .unwrap()
        .unwrap();
    assert!(kill.has_attribute("disabled"));
}

#[wasm_bindgen_test]
async fn znode_tree_delete_controller_and_the_shell_text_follow() {
    // Kafka: zookeeper-shell delete /controller → the node is gone until a re-election.
    let root = mount();
    wait_for("tree", 5000, || {
        (count(&root, "li.znode[data-path=\"/controller\"]") == 1).then_some(())
    })
    .await;
    assert!(
        count(&root, "li.znode.ephemeral[data-path=\"/controller\"]") == 1,
        "/controller is ephemeral"
    );
    click(&root, "Delete /controller in ZooKeeper");
    let shown = wait_for("node gone", 3000, || {
        let t = text(&root, ".controller-json")?;
        t.contains("Node does not exist").then_some(t)
    })
    .await;
    assert_eq!(shown, "Node does not exist: /controller");
    // One step later a broker re-elects itself and the epoch goes to 2.
    for _ in 0..50 {
        click(&root, "Step one event (right arrow)");
        gloo_timers::future::TimeoutFuture::new(5).await;
    }
    wait_for("epoch 2", 3000, || {
        text(&root, "header .summary").filter(|t| t.contains("epoch 2"))
    })
    .await;
}

#[wasm_bindgen_test]
async fn partition_table_unclean_toggle_and_produce() {
    // Kafka: kafka-configs.sh --alter --entity-type topics … unclean.leader.election.enable=true.
    let root = mount();
    let label = "Toggle unclean.leader.election.enable for topic orders";
    wait_for("table", 5000, || {
        (count(&root, "tr.partition") == 6).then_some(())
    })
    .await;
    let before = root
        .query_selector(&format!("button[aria-label=\"{label}\"]"))
        .unwrap()
        .unwrap()
        .text_content()
        .unwrap();
    assert_eq!(before, "unclean election: off");
    click(&root, label);
    wait_for("toggle on", 3000, || {
        let t = root
            .query_selector(&format!("button[aria-label=\"{label}\"]"))
            .ok()??
            .text_content()?;
        (t == "unclean election: on").then_some(())
    })
    .await;
    click(&root, "Produce 5 records to orders-0 with acks=all");
    wait_for("records in the leader's log", 3000, || {
        let leo = text(&root, "tr[data-partition=\"orders-0\"] .replica.leader sub")?;
        (leo == "5").then_some(())
    })
    .await;
}

#[wasm_bindgen_test]
async fn controls_step_play_pause_and_the_event_queue() {
    let root = mount();
    wait_for("controls", 5000, || text(&root, ".control-row .clock")).await;
    let t0 = text(&root, ".control-row .clock").unwrap();
    click(&root, "Step one event (right arrow)");
    wait_for("clock moved", 3000, || {
        text(&root, ".control-row .clock").filter(|t| *t != t0)
    })
    .await;
    click(&root, "Play (space)");
    wait_for("pause button", 3000, || {
        (count(&root, "button[aria-label=\"Pause (space)\"]") == 1).then_some(())
    })
    .await;
    let t1 = text(&root, ".control-row .clock").unwrap();
    wait_for("time runs", 3000, || {
        text(&root, ".control-row .clock").filter(|t| *t != t1)
    })
    .await;
    click(&root, "Pause (space)");
    wait_for("paused", 3000, || {
        (count(&root, "button[aria-label=\"Play (space)\"]") == 1).then_some(())
    })
    .await;
    assert_eq!(
        count(&root, ".queue"),
        4,
        "one event queue per running broker"
    );
    assert!(
        count(&root, ".invariants li.holds") >= 8,
        "every invariant holds"
    );
}

#[wasm_bindgen_test]
async fn admin_form_creates_a_topic_and_a_bad_one_shows_an_error() {
    // Kafka: kafka-topics.sh --create writes /brokers/topics/<t>; the controller's
    // TopicChange creates the partitions.
    let root = mount();
    wait_for("admin panel", 5000, || {
        root.query_selector("form[aria-label=\"Create a topic\"]")
            .ok()
            .flatten()
    })
    .await;
    let submit = |label: &str| {
        let b = root
            .query_selector(&format!(
                "form[aria-label=\"{label}\"] button[type=\"submit\"]"
            ))
            .unwrap()
            .unwrap();
        b.dyn_into::<HtmlElement>().unwrap().click();
    };
    submit("Create a topic");
    for _ in 0..40 {
        click(&root, "Step one event (right arrow)");
        gloo_timers::future::TimeoutFuture::new(5).await;
    }
    wait_for("events-2 row", 3000, || {
        (count(&root, "tr.partition[data-partition=\"events-2\"]") == 1).then_some(())
    })
    .await;
    // Creating it again is refused by the core: an error, and nothing changes.
    submit("Create a topic");
    let e = wait_for("error shown", 3000, || text(&root, ".error")).await;
    assert!(
        e.contains("TopicExistsException: topic 'events' already exists"),
        "{e}"
    );
    assert_eq!(
        count(&root, "tr.partition"),
        9,
        "6 partitions of orders and audit, 3 of events"
    );
}

#[wasm_bindgen_test]
fn the_trace_in_webassembly_matches_the_native_golden_fingerprint() {
    // Determinism: one seed and one list of actions give one trace, byte for
    // byte, natively (tests/golden_trace.rs) and here in the browser.
    let want = include_str!("golden/zombie-controller.trace").trim();
    assert_eq!(kcsim::golden_fingerprint(), want);
}
