//! The page's entry point: mount the app on `<body>`.

fn main() {
    yew::Renderer::<kcsim_web::App>::new().render();
}
