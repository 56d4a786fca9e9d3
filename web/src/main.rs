//! The page's entry point: mount the app on `<body>`, with share links.

fn main() {
    yew::Renderer::<kcsim_web::App>::with_props(kcsim_web::app::AppProps { url_state: true })
        .render();
}
