//! `mulino gui`: play and analyse in the browser. One page (HTML, CSS and
//! JS embedded in the binary, nothing fetched from elsewhere) talks JSON
//! to a small HTTP server that drives the engine API in-process.
//!
//! The same page also runs from static files (`scripts/build-web.sh`
//! writes them to `target/web/`): there the same JSON API, [`api`] over
//! [`sessions`], is answered by the engine in WebAssembly, in a worker
//! (`src/wasm/api.rs`). The server and `mulino gui`'s command line are
//! compiled out of that build.
//!
//! The layers: [`server`] (the embedded files, the accept loop and its
//! limits, the hosts it answers to) over `http` (hyper, set up for one
//! HTTP/1.1 request per connection under a deadline),
//! [`api`] (the JSON calls and the state they answer), [`sessions`] (one
//! game and engine per browser tab) and [`tablebase`] (the endgame
//! databases of `--tb DIR`).

pub mod api;
#[cfg(not(target_family = "wasm"))]
mod http;
#[cfg(not(target_family = "wasm"))]
pub mod server;
pub mod sessions;
pub mod tablebase;

#[cfg(not(target_family = "wasm"))]
use std::process::{Command, Stdio};

#[cfg(not(target_family = "wasm"))]
pub use server::{Gui, ServerError};

/// `mulino gui`'s command line.
#[cfg(not(target_family = "wasm"))]
#[derive(clap::Args, Debug, Clone)]
pub struct GuiArgs {
    /// The port to listen on (0: any free port).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// The address to listen on; the default serves this computer only.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Open the page in the default browser.
    #[arg(long)]
    pub open: bool,
    /// A directory of endgame databases (`mulino tb build`): the page shows
    /// their exact values and the engine plays from them.
    #[arg(long, value_name = "DIR")]
    pub tb: Option<std::path::PathBuf>,
    /// The rules the databases of `--tb` were built for (a variant name,
    /// as `mulino tb build --variant`): the page shows their values, and
    /// the engine plays from them, in games of those rules.
    #[arg(long, default_value = "nine", requires = "tb")]
    pub variant: crate::core::Variant,
}

/// Runs `mulino gui`: serves until the process is stopped.
#[cfg(not(target_family = "wasm"))]
pub fn run(args: GuiArgs) -> Result<(), ServerError> {
    if let Some(dir) = &args.tb {
        let checked = |usable: usize, refused: Vec<String>| {
            println!(
                "mulino gui: endgame databases checked: {usable} in use, {} not used",
                refused.len()
            );
        };
        match tablebase::open(dir, &args.variant.rules(), checked) {
            Ok((n, problems)) => {
                println!(
                    "mulino gui: {n} endgame database files for {} in {} (checking them)",
                    args.variant,
                    dir.display()
                );
                for p in problems {
                    eprintln!("mulino gui: not used: {p}");
                }
            }
            Err(e) => eprintln!("mulino gui: no databases used: {e}"),
        }
    }
    let gui = Gui::start(&args.host, args.port)?;
    // A wildcard address is no place to point a browser at.
    let url = match gui.addr().ip() {
        ip if ip.is_unspecified() => format!("http://localhost:{}/", gui.addr().port()),
        _ => gui.url(),
    };
    println!("mulino gui: serving {url} (Ctrl-C to stop)");
    if args.open {
        open_browser(&url);
    }
    gui.wait();
    Ok(())
}

/// Asks the desktop to open `url`; says so plainly when it cannot.
#[cfg(not(target_family = "wasm"))]
fn open_browser(url: &str) {
    let mut command = if cfg!(target_os = "macos") {
        Command::new("open")
    } else if cfg!(windows) {
        let mut c = Command::new("cmd");
        c.args(["/C", "start", ""]);
        c
    } else {
        Command::new("xdg-open")
    };
    // Our own message says what went wrong; the opener's chatter is noise.
    command
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let program = format!("{:?}", command.get_program());
    let url = url.to_string();
    // The opener may take its time or fail late; the server goes on.
    let _ = std::thread::Builder::new()
        .name("gui-open".into())
        .spawn(move || match command.status() {
            Ok(status) if status.success() => {}
            Ok(status) => eprintln!(
                "mulino gui: no browser could be opened ({program} {status}); open {url} yourself"
            ),
            Err(e) => eprintln!(
                "mulino gui: no browser could be opened ({program}: {e}); open {url} yourself"
            ),
        });
}
