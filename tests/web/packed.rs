//! Packed databases over HTTP: a small whole game packed, served by a real
//! static web server that honours range requests (nginx, from Debian's
//! packages, started here on a loopback port), and read by the engine in
//! WebAssembly: under Node its `tbprobe` answers as the native engine's
//! from the source folder, a damaged block is never used, and how long a
//! position and its moves take through a round trip of 50 ms is measured;
//! in headless Chromium the static board shows the values and plays from
//! them. Ignored unless asked for: they need nginx and `target/web/`.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use mulino::core::Rules;
use mulino::tb::moving::build::{Options, PairBuild};
use mulino::tb::pack::write::{PackOptions, pack};
use mulino::tb::placing::LAYERS;
use mulino::tb::placing::build::{PlacingOptions, build_layer};
use mulino::tb::{NMoveLimits, TbRules};

use crate::chromium::{LARGE, Page};

const LIMITS: NMoveLimits = NMoveLimits {
    n_move: 100,
    endgame: 100,
};

/// Positions the small game holds: the moving phase up to 4-4.
const FENS: [&str; 5] = [
    "O@O*****/***O@***/******@* w m s 3 0 3 0 0 0 0 0 0 0 0 0 1",
    "O@O*****/***O@***/******@* b m s 3 0 3 0 0 0 0 0 0 0 0 0 1",
    "OO*@****/*O**@***/**O***@* w m s 4 0 3 0 0 0 0 0 0 0 0 40 20",
    "@@*O****/*@**O***/**@***O* w m s 3 0 4 0 0 0 0 0 0 0 0 7 20",
    "OO*@@***/*O**@***/**O***@* b m s 4 0 4 0 0 0 0 0 0 0 0 0 30",
];

/// A folder of this run's own.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("mulino-web-packed-{}", std::process::id()))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// The `.wdz` files up to 4-4 and the placing layers of at most four
/// pieces a side (`src`), and their pack (`pack`), made once.
fn game() -> &'static (PathBuf, PathBuf) {
    static GAME: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    GAME.get_or_init(|| {
        let rules = TbRules::from_rules(&Rules::default()).expect("nine");
        let src = scratch("src");
        let opts = Options {
            dir: src.clone(),
            threads: 2,
            memory: 1 << 30,
        };
        for (a, b) in mulino::tb::index::plan(&[(4, 4)]) {
            PairBuild::wdz(rules, LIMITS, a, b, &opts)
                .run(&|_| {})
                .expect("builds");
        }
        let placing = PlacingOptions {
            dir: src.clone(),
            threads: 2,
            max: 4,
            limits: LIMITS,
            memory: 1 << 30,
        };
        for k in (0..LAYERS).rev() {
            build_layer(rules, k, &placing, &|_| {}).expect("builds a layer");
        }
        let out = scratch("www").join("pack");
        let opts = PackOptions {
            src: src.clone(),
            out: out.clone(),
            threads: 2,
            block_slots: 4096,
        };
        pack(&opts, &|_| {}).expect("packs");
        (src, out)
    })
}

/// nginx serving `root` on a loopback port, with the headers another
/// origin's page needs (docs/databases.md, "Packed folders on the web").
struct Nginx {
    child: Child,
    port: u16,
}

impl Nginx {
    fn start(root: &Path) -> Nginx {
        let program = ["/usr/sbin/nginx", "/usr/bin/nginx"]
            .into_iter()
            .find(|p| Path::new(p).exists())
            .expect("nginx (apt-get install nginx-light): these tests need a real static server");
        let port = free_port();
        let dir = scratch(&format!("nginx-{port}"));
        let conf = format!(
            "worker_processes 1; daemon off; pid {dir}/nginx.pid; error_log {dir}/error.log;\n\
             events {{ worker_connections 64; }}\n\
             http {{ access_log {dir}/access.log; client_body_temp_path {dir}/body;\n\
               proxy_temp_path {dir}/proxy; fastcgi_temp_path {dir}/fastcgi;\n\
               uwsgi_temp_path {dir}/uwsgi; scgi_temp_path {dir}/scgi;\n\
               types {{ application/json json; application/octet-stream bin; }}\n\
               server {{ listen 127.0.0.1:{port}; root {root};\n\
                 add_header Access-Control-Allow-Origin * always;\n\
                 add_header Cross-Origin-Resource-Policy cross-origin always; }} }}\n",
            dir = dir.display(),
            root = root.display(),
        );
        let conf_path = dir.join("nginx.conf");
        std::fs::write(&conf_path, conf).expect("nginx.conf");
        let child = Command::new(program)
            .arg("-p")
            .arg(&dir)
            .arg("-c")
            .arg(&conf_path)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("nginx starts");
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "nginx does not listen on {port}");
            std::thread::sleep(Duration::from_millis(50));
        }
        Nginx { child, port }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}/{path}", self.port)
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("a port");
    l.local_addr().expect("its address").port()
}

/// A proxy on loopback that holds every byte each way for `delay` (a
/// round trip of twice that), to `to`.
fn delaying_proxy(to: u16, delay: Duration) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
    let port = listener.local_addr().expect("its address").port();
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            let Ok(server) = TcpStream::connect(("127.0.0.1", to)) else {
                continue;
            };
            for (mut from, mut into) in [
                (
                    client.try_clone().expect("a clone"),
                    server.try_clone().expect("a clone"),
                ),
                (server, client),
            ] {
                std::thread::spawn(move || {
                    let mut buf = [0u8; 65536];
                    loop {
                        match from.read(&mut buf) {
                            Ok(0) | Err(_) => {
                                let _ = into.shutdown(std::net::Shutdown::Write);
                                return;
                            }
                            Ok(n) => {
                                std::thread::sleep(delay);
                                if into.write_all(&buf[..n]).is_err() {
                                    return;
                                }
                            }
                        }
                    }
                });
            }
        }
    });
    port
}

fn web_folder() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/web");
    assert!(
        dir.join("mulino.mjs").is_file() && dir.join("mulino-tb.mjs").is_file(),
        "{} has no engine: run scripts/build-web.sh",
        dir.display()
    );
    dir
}

/// What the engine answers to `tbprobe` in each of `FENS`, with
/// `TablebasePath` `path`: `program` is the native binary, or Node with
/// the engine in WebAssembly.
fn tbprobe_answers(program: &[&str], path: &str) -> (Vec<String>, Duration) {
    let mut input = format!("setoption name TablebasePath value {path}\nisready\n");
    for fen in FENS {
        input.push_str(&format!("position fen {fen}\ntbprobe\n"));
    }
    input.push_str("quit\n");
    let started = Instant::now();
    let mut child = Command::new(program[0])
        .args(&program[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the engine starts");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("input");
    let out = child.wait_with_output().expect("the engine ends");
    let took = started.elapsed();
    assert!(out.status.success(), "{out:?}");
    let lines = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with("tbprobe") || l.starts_with("info string"))
        .map(str::to_string)
        .collect();
    (lines, took)
}

const NATIVE: &str = env!("CARGO_BIN_EXE_mulino");

#[test]
#[ignore = "needs nginx and scripts/build-web.sh's target/web: cargo test --test web -- --include-ignored"]
fn the_engine_in_webassembly_probes_a_pack_over_http_as_the_native_one_its_source() {
    let (src, pack) = game();
    let web = web_folder();
    let node = ["node", &web.join("mulino.mjs").to_string_lossy()].map(String::from);
    let node: Vec<&str> = node.iter().map(String::as_str).collect();
    let nginx = Nginx::start(pack.parent().expect("the served folder"));
    let (native, _) = tbprobe_answers(&[NATIVE], &src.to_string_lossy());
    assert!(
        native.iter().any(|l| l.starts_with("tbprobe value win")),
        "{native:?}"
    );
    let (wasm, _) = tbprobe_answers(&node, &nginx.url("pack/"));
    // The native engine over the source folder says how many files it
    // checked; over the pack, how many tables it has: the rest is equal.
    let values = |lines: &[String]| -> Vec<String> {
        lines
            .iter()
            .filter(|l| l.starts_with("tbprobe"))
            .cloned()
            .collect()
    };
    assert_eq!(values(&native), values(&wasm));
    assert_eq!(values(&native).len(), wasm.len() - 1, "{wasm:?}");
    // Each range came by a range request (206), none of a whole data file.
    let log = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("mulino-web-packed-{}", std::process::id()))
            .join(format!("nginx-{}", nginx.port))
            .join("access.log"),
    )
    .expect("nginx's log");
    assert!(
        log.lines()
            .any(|l| l.contains("data-000.bin") && l.contains(" 206 ")),
        "{log}"
    );
    assert!(
        !log.lines()
            .any(|l| l.contains("data-") && l.contains(" 200 ")),
        "{log}"
    );

    // Through a round trip of 50 ms: the whole session, from the start to
    // the last answer (the manifest, then for each position its indexes
    // and blocks, each batch at once).
    let slow = delaying_proxy(nginx.port, Duration::from_millis(25));
    let (slowly, took) = tbprobe_answers(&node, &format!("http://127.0.0.1:{slow}/pack/"));
    assert_eq!(values(&slowly), values(&native));
    eprintln!(
        "packed databases over HTTP with a 50 ms round trip: {} positions and their moves in {:.2} s \
         (Node's start and the engine's included)",
        FENS.len(),
        took.as_secs_f64()
    );
}

#[test]
#[ignore = "needs nginx and scripts/build-web.sh's target/web: cargo test --test web -- --include-ignored"]
fn a_damaged_block_served_is_never_used() {
    let (_, pack) = game();
    let web = web_folder();
    let www = scratch("www-damaged");
    let damaged = www.join("pack");
    std::fs::create_dir_all(&damaged).expect("a folder");
    for entry in std::fs::read_dir(pack).expect("the pack") {
        let entry = entry.expect("a file");
        std::fs::copy(entry.path(), damaged.join(entry.file_name())).expect("a copy");
    }
    // Every byte of every data file flipped: no block passes its checksum.
    for entry in std::fs::read_dir(&damaged).expect("the copy") {
        let path = entry.expect("a file").path();
        if path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("data-"))
        {
            let bytes: Vec<u8> = std::fs::read(&path)
                .expect("data")
                .iter()
                .map(|b| !b)
                .collect();
            std::fs::write(&path, bytes).expect("damaged");
        }
    }
    let nginx = Nginx::start(&www);
    let node = [
        "node".to_string(),
        web.join("mulino.mjs").to_string_lossy().into_owned(),
    ];
    let (lines, _) = tbprobe_answers(&[&node[0], &node[1]], &nginx.url("pack/"));
    let refusals: Vec<&String> = lines
        .iter()
        .filter(|l| l.contains("fails its checksum"))
        .collect();
    assert!(!refusals.is_empty(), "{lines:?}");
    // Told once a block; no value from a damaged block.
    let mut seen = std::collections::HashSet::new();
    assert!(
        refusals.iter().all(|l| seen.insert(l.as_str())),
        "{refusals:?}"
    );
    assert!(
        !lines.iter().any(|l| l.starts_with("tbprobe value win")),
        "{lines:?}"
    );
}

#[test]
#[ignore = "needs Chromium, nginx and scripts/build-web.sh's target/web: cargo test --test web -- --include-ignored"]
fn the_static_board_shows_a_packs_values_and_plays_from_them() {
    let (_, pack) = game();
    let web = web_folder();
    let nginx = Nginx::start(pack.parent().expect("the served folder"));
    let mut page = Page::open_static(LARGE, &web);
    page.two_humans();
    let url = nginx.url("pack/");
    let cdp = &mut page.cdp;
    // The databases from another origin, as a setting.
    cdp.type_into("#tb-url", &url);
    cdp.click("#btn-tb");
    cdp.wait_for(
        "the databases",
        "document.querySelector('#tb-status').textContent.startsWith('Perfect play')",
    );
    // White to move wins in 3-3 (FENS[0]): the page shows the databases'
    // value, the engine plays a move that keeps it.
    cdp.eval("ui.config.showEval = { engine: true, humans: true }");
    cdp.eval(&format!(
        "document.querySelector('#fen').value = '{}'",
        FENS[0]
    ));
    cdp.click("#btn-setup");
    cdp.wait_for(
        "the value",
        "(document.querySelector('#tablebase').textContent || '').includes('win')",
    );
    let shown = cdp.text("#tablebase");
    assert!(shown.contains("win"), "{shown}");
    let before = cdp.eval("ui.st.moves.length").as_u64().expect("a count");
    cdp.click("#btn-go");
    cdp.wait_for(
        "the engine's move",
        &format!("ui.st && ui.st.moves.length > {before} && !ui.st.running"),
    );
    // After its move White is still winning: Black, to move, is lost.
    cdp.wait_for(
        "the value after",
        "!!ui.st.tablebase && ui.st.tablebase.result === 'loss'",
    );
    let errors = page.cdp.console_errors();
    assert!(errors.is_empty(), "console errors: {errors:#?}");
}
