//! Browser tests: the app mounted in headless Chromium (wasm-bindgen-test).
//! Run by `cargo xtask test` (stage "browser").
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::*;
use web_sys::Element;

wasm_bindgen_test_configure!(run_in_browser);

/// A fresh element on the page for one test.
fn fresh_root() -> Element {
    let doc = web_sys::window()
        .and_then(|w| w.document())
        .expect("a document");
    let root = doc.create_element("div").expect("a div");
    doc.body()
        .expect("a body")
        .append_child(&root)
        .expect("appended");
    root
}

/// Poll until `f` returns Some, or fail after `ms` of waiting. Yew renders
/// asynchronously after mount and after events.
async fn wait_for<T>(ms: u32, mut f: impl FnMut() -> Option<T>) -> T {
    let mut waited = 0;
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(waited < ms, "condition not met within {ms} ms");
        gloo_timers::future::TimeoutFuture::new(10).await;
        waited += 10;
    }
}

#[wasm_bindgen_test]
async fn the_app_draws_three_brokers_and_the_controller_znode() {
    // Kafka: KafkaController.elect — one broker holds /controller, every broker's
    // activeControllerId names it.
    let root = fresh_root();
    let _app = kcsim_web::mount(root.clone());
    let cards = wait_for(5000, || {
        let list = root.query_selector_all("article.broker").ok()?;
        (list.length() == 3).then_some(list)
    })
    .await;
    assert_eq!(cards.length(), 3);
    let json = root
        .query_selector(".controller-json")
        .unwrap()
        .expect("/controller shown")
        .text_content()
        .unwrap();
    assert!(json.starts_with(r#"{"version":1,"brokerid":"#), "{json}");
    let controller = root
        .query_selector_all("article.broker.controller")
        .unwrap();
    assert_eq!(
        controller.length(),
        1,
        "exactly one broker is marked controller"
    );
    let id = controller
        .get(0)
        .unwrap()
        .dyn_into_element()
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

trait DynElement {
    fn dyn_into_element(self) -> Element;
}

impl DynElement for web_sys::Node {
    fn dyn_into_element(self) -> Element {
        use wasm_bindgen::JsCast;
        self.dyn_into::<Element>().expect("an element")
    }
}
