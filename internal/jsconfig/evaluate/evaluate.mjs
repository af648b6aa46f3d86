// vx-config's evaluator, run by node: it imports the bundled config files
// one after the other and writes their default exports, as JSON, to a
// result file, with what they read on the way: the files and directories
// they read through node:fs, and the variables they read from process.env.
// Its one argument is vx-config's directory for this evaluation, where it
// writes result.json. vx-config starts node while esbuild bundles, and
// writes the manifest (JSON: {bundles: [{bundle, file}], externals}) to
// node's stdin once the bundles are there, then closes it: the evaluator
// watches node:fs meanwhile, and reads the manifest before importing them.
// Anything the configs print goes to node's stdout and stderr, which vx-config
// passes on to vx's stderr: the result never travels through them.
import fs from "node:fs";
import path from "node:path";
import Module, { builtinModules, createRequire, syncBuiltinESMExports } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import os from "node:os";

const minNode = 18;
const orig = {
  readFileSync: fs.readFileSync,
  readdirSync: fs.readdirSync,
  statSync: fs.statSync,
  lstatSync: fs.lstatSync,
  readlinkSync: fs.readlinkSync,
  writeFileSync: fs.writeFileSync,
  renameSync: fs.renameSync,
  exit: process.exit,
};
const ownDir = path.resolve(process.argv[2]) + path.sep;
const resultFile = ownDir + "result.json";
let finished = false;

function write(result) {
  finished = true;
  const tmp = resultFile + ".tmp";
  orig.writeFileSync(tmp, JSON.stringify(result));
  orig.renameSync(tmp, resultFile);
}

// readManifest reads stdin to its end: the manifest, or nothing when
// vx-config has no bundles to evaluate (it stops node then anyway).
function readManifest() {
  const chunks = [];
  const buf = Buffer.alloc(1 << 16);
  for (;;) {
    let n;
    try {
      n = fs.readSync(0, buf, 0, buf.length, null);
    } catch (e) {
      if (e.code === "EOF") break; // Windows: the pipe's end
      if (e.code === "EAGAIN") {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
        continue;
      }
      throw e;
    }
    if (n === 0) break;
    chunks.push(Buffer.from(buf.subarray(0, n)));
  }
  const text = Buffer.concat(chunks).toString("utf8");
  return text === "" ? null : JSON.parse(text);
}

const major = Number(process.versions.node.split(".")[0]);
if (major < minNode) {
  write({ error: { msg: `vx.config needs Node.js ${minNode} or later; ${process.execPath} is ${process.version}` } });
  orig.exit(0);
}

// ---- what the configs read --------------------------------------------------

const files = new Map(); // absolute path -> state
const lists = new Map(); // absolute path -> names, or "absent" or "other"
const stats = new Map(); // "<kind>\0path" -> state: kind stat, lstat, meta, lmeta or readlink
const env = new Map(); // name -> value, or null when unset
const written = new Set(); // variables the config set or deleted itself
let environ = false;
let volatile = "";

// absPath returns the absolute path p names, or null for what is not a
// dependency: a file descriptor, vx-config's own files.
function absPath(p) {
  if (p instanceof URL) p = fileURLToPath(p);
  else if (Buffer.isBuffer(p)) p = p.toString();
  if (typeof p !== "string") return null;
  const a = path.resolve(p);
  return a.startsWith(ownDir) ? null : a;
}

function errState(e) {
  return e && (e.code === "ENOENT" || e.code === "ENOTDIR") ? "absent" : "other";
}

// sha is the state of a file read, from its bytes: a small file's bytes
// themselves, which vx-config hashes (node:crypto costs more to load than
// a .env to send), up to sendTotal bytes in all; else the SHA-256.
const sendMax = 64 << 10;
const sendTotal = 256 << 10;
let sent = 0;
let createHash = null;
function sha(buf) {
  if (buf.length <= sendMax && sent + buf.length <= sendTotal) {
    sent += buf.length;
    return "base64:" + buf.toString("base64");
  }
  createHash ??= createRequire(import.meta.url)("node:crypto").createHash;
  return "sha256:" + createHash("sha256").update(buf).digest("hex");
}

function noteContent(p, buf) {
  const a = absPath(p);
  if (a !== null && !files.has(a)) files.set(a, sha(buf));
}

function noteFileError(p, e) {
  const a = absPath(p);
  if (a !== null && !files.has(a)) files.set(a, errState(e));
}

// reading is the path the evaluator reads with node's readFileSync, which
// opens it through fs.openSync, that is through the wrapper below: that
// open is not the config's, and the file's content is noted by whoever
// reads it (else noteFile would read it again, and again from within).
let reading = null;

function readOwn(a, p, options) {
  const outer = reading;
  reading = a;
  try {
    return orig.readFileSync(p, options);
  } finally {
    reading = outer;
  }
}

// noteFile reads the file itself: for reads the wrapper does not see the
// bytes of (a stream, a file descriptor opened by name, loadEnvFile).
function noteFile(p) {
  const a = absPath(p);
  if (a === null || files.has(a) || a === reading) return;
  try {
    files.set(a, sha(readOwn(a, a)));
  } catch (e) {
    files.set(a, errState(e));
  }
}

function noteListOf(p) {
  const a = absPath(p);
  if (a === null || lists.has(a)) return;
  try {
    lists.set(a, orig.readdirSync(a));
  } catch (e) {
    lists.set(a, errState(e));
  }
}

function kindOf(st) {
  if (st.isFile()) return "file";
  if (st.isDirectory()) return "dir";
  if (st.isSymbolicLink()) return "link";
  return "other";
}

function noteStat(p, lstat) {
  const a = absPath(p);
  if (a === null) return;
  const key = (lstat ? "lstat\0" : "stat\0") + a;
  if (stats.has(key)) return;
  try {
    stats.set(key, kindOf((lstat ? orig.lstatSync : orig.statSync)(a)));
  } catch (e) {
    stats.set(key, errState(e));
  }
}

// noteMeta records what a Stats object tells beyond the kind: the kind,
// size and modification time (nanoseconds), as wire.MetaState reads them.
function noteMeta(p, lstat) {
  const a = absPath(p);
  if (a === null) return;
  const key = (lstat ? "lmeta\0" : "meta\0") + a;
  if (stats.has(key)) return;
  try {
    const st = (lstat ? orig.lstatSync : orig.statSync)(a, { bigint: true });
    stats.set(key, `${kindOf(st)} ${st.size} ${st.mtimeNs}`);
  } catch (e) {
    stats.set(key, errState(e));
  }
}

// noteLink records where a symbolic link points.
function noteLink(p) {
  const a = absPath(p);
  if (a === null) return;
  const key = "readlink\0" + a;
  if (stats.has(key)) return;
  try {
    stats.set(key, "=" + orig.readlinkSync(a));
  } catch (e) {
    stats.set(key, errState(e));
  }
}

// noteEntries records a listing read with its entries' kinds
// (withFileTypes: the kind without following links) and, when recursive,
// every directory below, as node lists them.
function noteEntries(p, options) {
  const recursive = options && typeof options === "object" && options.recursive;
  const types = options && typeof options === "object" && options.withFileTypes;
  if (!recursive && !types) return;
  const a = absPath(p);
  if (a === null) return;
  const walk = (dir, depth) => {
    noteListOf(dir);
    let ents;
    try {
      ents = orig.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of ents) {
      const sub = path.join(dir, e.name);
      if (types || recursive) noteStat(sub, true);
      if (recursive && e.isDirectory() && depth < 64) walk(sub, depth + 1);
    }
  };
  walk(a, 0);
}

// decode turns the bytes read into what the caller asked for.
function encodingOf(options) {
  if (typeof options === "string") return options;
  return options && options.encoding ? options.encoding : null;
}
function decode(buf, options) {
  const enc = encodingOf(options);
  return enc && enc !== "buffer" ? buf.toString(enc) : buf;
}
function flagOnly(options) {
  return options && typeof options === "object" && options.flag ? { flag: options.flag } : undefined;
}

fs.readFileSync = function readFileSync(p, options) {
  if (typeof p === "number") return orig.readFileSync(p, options);
  let buf;
  try {
    buf = readOwn(absPath(p), p, flagOnly(options));
  } catch (e) {
    noteFileError(p, e);
    throw e;
  }
  noteContent(p, buf);
  return decode(buf, options);
};

const origReadFile = fs.readFile;
fs.readFile = function readFile(p, options, cb) {
  if (typeof options === "function") [options, cb] = [undefined, options];
  if (typeof p === "number") return origReadFile(p, options, cb);
  origReadFile(p, flagOnly(options), (err, buf) => {
    if (err) {
      noteFileError(p, err);
      return cb(err);
    }
    noteContent(p, buf);
    cb(null, decode(buf, options));
  });
};

const promises = fs.promises;
const origPReadFile = promises.readFile;
promises.readFile = async function readFile(p, options) {
  if (typeof p !== "string" && !(p instanceof URL) && !Buffer.isBuffer(p)) return origPReadFile(p, options);
  let buf;
  try {
    buf = await origPReadFile(p, flagOnly(options));
  } catch (e) {
    noteFileError(p, e);
    throw e;
  }
  noteContent(p, buf);
  return decode(buf, options);
};

// Listings: the names, whatever form the caller asked for.
function wrapList(obj, name) {
  const fn = obj[name];
  if (typeof fn !== "function") return;
  obj[name] = function (p, ...rest) {
    noteListOf(p);
    noteEntries(p, rest[0]);
    return fn.call(this, p, ...rest);
  };
}
wrapList(fs, "readdirSync");
wrapList(fs, "readdir");
wrapList(promises, "readdir");
wrapList(fs, "opendirSync");
wrapList(fs, "opendir");
wrapList(promises, "opendir");

// Kinds: exists, access, realpath; stat and lstat return a Stats object,
// whose size and times count too.
function wrapStat(obj, name, lstat, meta) {
  const fn = obj[name];
  if (typeof fn !== "function") return;
  obj[name] = function (p, ...rest) {
    noteStat(p, lstat);
    if (meta) noteMeta(p, lstat);
    return fn.call(this, p, ...rest);
  };
}
for (const n of ["existsSync", "exists", "accessSync", "access", "realpathSync", "realpath"]) wrapStat(fs, n, false, false);
for (const n of ["statSync", "stat"]) wrapStat(fs, n, false, true);
for (const n of ["lstatSync", "lstat"]) wrapStat(fs, n, true, true);
for (const n of ["access", "realpath"]) wrapStat(promises, n, false, false);
wrapStat(promises, "stat", false, true);
wrapStat(promises, "lstat", true, true);
if (fs.realpathSync.native) {
  const native = fs.realpathSync.native;
  fs.realpathSync.native = function (p, ...rest) {
    noteStat(p, false);
    return native.call(this, p, ...rest);
  };
}

// Where links point.
function wrapLink(obj, name) {
  const fn = obj[name];
  if (typeof fn !== "function") return;
  obj[name] = function (p, ...rest) {
    noteLink(p);
    return fn.call(this, p, ...rest);
  };
}
wrapLink(fs, "readlinkSync");
wrapLink(fs, "readlink");
wrapLink(promises, "readlink");

// Contents read in other ways: opened by name, streamed.
function wrapContent(obj, name) {
  const fn = obj[name];
  if (typeof fn !== "function") return;
  obj[name] = function (p, ...rest) {
    noteFile(p);
    return fn.call(this, p, ...rest);
  };
}
for (const n of ["openSync", "open", "createReadStream", "openAsBlob", "copyFileSync", "copyFile"]) wrapContent(fs, n);
for (const n of ["open", "copyFile"]) wrapContent(promises, n);

// A file opened by name: its descriptor's fstat, and a FileHandle's stat,
// tell what stat on its path does.
const fdPaths = new Map(); // descriptor -> absolute path
const openSyncNoted = fs.openSync;
fs.openSync = function openSync(p, ...rest) {
  const fd = openSyncNoted.call(this, p, ...rest);
  const a = absPath(p);
  if (a !== null) fdPaths.set(fd, a);
  return fd;
};
const openNoted = fs.open;
fs.open = function open(p, ...rest) {
  const cb = rest.length > 0 && typeof rest[rest.length - 1] === "function" ? rest.pop() : null;
  if (!cb) return openNoted.call(this, p, ...rest);
  return openNoted.call(this, p, ...rest, (err, fd) => {
    const a = absPath(p);
    if (!err && a !== null) fdPaths.set(fd, a);
    cb(err, fd);
  });
};
const pOpenNoted = promises.open;
promises.open = async function open(p, ...rest) {
  const h = await pOpenNoted.call(this, p, ...rest);
  const a = absPath(p);
  if (a !== null) fdPaths.set(h.fd, a);
  return h;
};
for (const n of ["fstatSync", "fstat"]) {
  const fn = fs[n];
  fs[n] = function (fd, ...rest) {
    const a = fdPaths.get(fd);
    if (a) noteMeta(a, false);
    return fn.call(this, fd, ...rest);
  };
}
{
  const h = await pOpenNoted.call(promises, process.argv[1]);
  const proto = Object.getPrototypeOf(h);
  await h.close();
  const stat = proto.stat;
  proto.stat = function (...args) {
    const a = fdPaths.get(this.fd);
    if (a) noteMeta(a, false);
    return stat.apply(this, args);
  };
}
if (typeof process.loadEnvFile === "function") {
  const load = process.loadEnvFile;
  process.loadEnvFile = function loadEnvFile(p = ".env") {
    noteFile(p);
    return load.call(process, p);
  };
}

// Programs, threads, the network, tree copies and globs have inputs vx
// cannot see (a worker's node:fs is not this one): such a result is not
// remembered.
function wrapVolatile(obj, name, why) {
  const fn = obj && obj[name];
  if (typeof fn !== "function") return;
  obj[name] = function (...args) {
    volatile ||= why;
    return fn.apply(this, args);
  };
}
wrapVolatile(globalThis, "fetch", "it uses the network (fetch)");
for (const n of ["cpSync", "cp", "globSync", "glob"]) wrapVolatile(fs, n, `it reads files vx cannot follow (fs.${n})`);
for (const n of ["cp", "glob"]) wrapVolatile(promises, n, `it reads files vx cannot follow (fs.promises.${n})`);
// The modules of programs, the network and threads are loaded, to be
// watched, only when the config may reach one (loading them all costs
// every evaluation): when a bundle imports one, or computes what it imports
// or evaluates code (esbuild cannot tell what then: "*"), or imports node:vm
// or anything but node's modules; or when the config, running, requires one
// (whatever names require: Module._load) or asks process.getBuiltinModule
// (Node.js 22.3) for one.
const lazy = ["child_process", "net", "http", "https", "http2", "tls", "dgram", "dns", "worker_threads"];
const isLazy = (id) => typeof id === "string" && lazy.includes(id.replace(/^node:/, "").split("/")[0]);
let lazyWatched = false;
function watchLazy(load) {
  if (lazyWatched) return;
  lazyWatched = true;
  watchPrograms(...lazy.map((m) => load("node:" + m)));
  syncBuiltinESMExports();
}
const requireBuiltin = createRequire(import.meta.url);
const moduleLoad = Module._load;
Module._load = function _load(request, ...rest) {
  if (!lazyWatched && isLazy(request)) watchLazy(requireBuiltin);
  return moduleLoad.call(this, request, ...rest);
};
if (typeof process.getBuiltinModule === "function") {
  const get = process.getBuiltinModule;
  process.getBuiltinModule = function getBuiltinModule(id) {
    if (!lazyWatched && isLazy(id)) watchLazy((m) => get.call(process, m));
    return get.call(process, id);
  };
}
// The bundles are there: what follows depends on what they import.
const manifest = readManifest();
if (manifest === null) orig.exit(0);
const externals = manifest.externals || [];
const builtin = (e) => e.startsWith("node:") || builtinModules.includes(e);
if (externals.some((e) => e === "*" || !builtin(e) || isLazy(e) || e.replace(/^node:/, "") === "vm")) watchLazy(requireBuiltin);
function watchPrograms(childProcess, net, http, https, http2, tls, dgram, dns, workerThreads) {
  for (const n of ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"]) {
    wrapVolatile(childProcess, n, `it starts a program (child_process.${n})`);
  }
  for (const [mod, name, ns] of [
    [net, "connect", "net"], [net, "createConnection", "net"], [tls, "connect", "tls"],
    [http, "request", "http"], [http, "get", "http"], [https, "request", "https"], [https, "get", "https"],
    [http2, "connect", "http2"], [dgram, "createSocket", "dgram"],
    [dns, "lookup", "dns"], [dns, "resolve", "dns"], [dns.promises, "lookup", "dns"], [dns.promises, "resolve", "dns"],
  ]) {
    wrapVolatile(mod, name, `it uses the network (${ns}.${name})`);
  }
  wrapVolatile(net.Socket.prototype, "connect", "it uses the network (net.Socket)");
  if (typeof workerThreads.Worker === "function") {
    const W = workerThreads.Worker;
    workerThreads.Worker = class Worker extends W {
      constructor(...args) {
        volatile ||= "it starts a worker thread (worker_threads.Worker)";
        super(...args);
      }
    };
  }
}
syncBuiltinESMExports();

const realEnv = process.env;
function readVar(k) {
  if (typeof k !== "string" || written.has(k) || env.has(k)) return;
  const v = realEnv[k];
  env.set(k, v === undefined ? null : String(v));
}
process.env = new Proxy(realEnv, {
  get(t, k) {
    readVar(k);
    return Reflect.get(t, k);
  },
  has(t, k) {
    readVar(k);
    return Reflect.has(t, k);
  },
  getOwnPropertyDescriptor(t, k) {
    readVar(k);
    return Reflect.getOwnPropertyDescriptor(t, k);
  },
  ownKeys(t) {
    environ = true;
    return Reflect.ownKeys(t);
  },
  set(t, k, v) {
    if (typeof k === "string") written.add(k);
    return Reflect.set(t, k, v);
  },
  deleteProperty(t, k) {
    if (typeof k === "string") written.add(k);
    return Reflect.deleteProperty(t, k);
  },
  defineProperty(t, k, d) {
    if (typeof k === "string") written.add(k);
    return Reflect.defineProperty(t, k, d);
  },
});

// The home directory and the temporary one come from the environment
// (HOME, USERPROFILE; TMPDIR, TMP, TEMP), which node reads without
// process.env.
const homeVars = process.platform === "win32" ? ["USERPROFILE", "HOMEDRIVE", "HOMEPATH"] : ["HOME"];
const tmpVars = process.platform === "win32" ? ["TEMP", "TMP", "SystemRoot", "windir"] : ["TMPDIR", "TMP", "TEMP"];
for (const [name, vars] of [["homedir", homeVars], ["tmpdir", tmpVars]]) {
  const fn = os[name];
  os[name] = function (...args) {
    for (const v of vars) readVar(v);
    return fn.apply(this, args);
  };
}
syncBuiltinESMExports();

process.exit = function exit(code) {
  throw new Error(`the config called process.exit(${code === undefined ? "" : code})`);
};

// ---- the default exports, as plain data ----------------------------------------

class ShapeError extends Error {}

function keyPath(p) {
  let s = "";
  for (const k of p) {
    if (typeof k === "number") s += `[${k}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k)) s += (s ? "." : "") + k;
    else s += `[${JSON.stringify(k)}]`;
  }
  return s;
}

function describe(v) {
  if (typeof v === "function") return "a function";
  if (typeof v === "symbol") return "a symbol";
  if (typeof v === "bigint") return "a bigint";
  if (v === undefined) return "undefined";
  if (v === null) return "null";
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (typeof v === "string") return JSON.stringify(v);
  try {
    const name = Object.getPrototypeOf(v)?.constructor?.name;
    return typeof name === "string" && name ? `a ${name}` : "an object";
  } catch {
    return "an object";
  }
}

// ReadError is an exception thrown while the default export was read (a
// getter, a Proxy's trap), at the key path p.
class ReadError extends Error {
  constructor(p, err) {
    super("");
    this.path = p;
    this.cause = err;
  }
}

// plain returns v as data JSON can hold, or throws a ShapeError naming the
// key path of the first value it cannot.
function plain(v, p, seen) {
  switch (typeof v) {
    case "string":
    case "boolean":
      return v;
    case "number":
      if (Number.isFinite(v)) return v;
      break;
    case "object": {
      if (v === null) return v;
      if (seen.has(v)) throw new ShapeError(`${keyPath(p) || "the default export"}: refers to itself (a cycle)`);
      seen.add(v);
      const read = (f, at = p) => {
        try {
          return f();
        } catch (err) {
          if (err instanceof ShapeError || err instanceof ReadError) throw err;
          throw new ReadError(at, err);
        }
      };
      try {
        if (read(() => Array.isArray(v))) {
          const n = read(() => v.length);
          const out = [];
          for (let i = 0; i < n; i++) out.push(plain(read(() => v[i], [...p, i]), [...p, i], seen));
          return out;
        }
        const proto = read(() => Object.getPrototypeOf(v));
        if (proto !== Object.prototype && proto !== null) {
          if (read(() => Object.getPrototypeOf(proto) === Object.prototype && !Object.prototype.hasOwnProperty.call(proto, "constructor"))) {
            throw new ShapeError(
              `${keyPath(p) || "the default export"}: has an object as its prototype, which is what __proto__: { ... } in an object literal makes (it is not a key); write ["__proto__"]: { ... } for a key of that name`,
            );
          }
          break;
        }
        // A key of any name, __proto__ included, is a key of the result.
        const out = Object.create(null);
        for (const k of read(() => Object.keys(v))) {
          const e = read(() => v[k], [...p, k]);
          if (e === undefined) continue; // as JSON.stringify: an absent key
          out[k] = plain(e, [...p, k], seen);
        }
        return out;
      } finally {
        seen.delete(v);
      }
    }
  }
  const where = keyPath(p);
  throw new ShapeError(
    `${where ? where + ": " : "the default export: "}found ${describe(v)}, which is not configuration data (objects, arrays, strings, numbers, true and false)`,
  );
}

// frames returns the positions in the bundles of err's stack, innermost
// first: [{bundle, line, col}].
function frames(err) {
  const out = [];
  const stack = err && typeof err.stack === "string" ? err.stack : "";
  for (const [i, b] of manifest.bundles.entries()) {
    const url = pathToFileURL(b.bundle).href;
    let at = 0;
    for (;;) {
      const k = stack.indexOf(url + ":", at);
      if (k < 0) break;
      const m = /^:(\d+):(\d+)/.exec(stack.slice(k + url.length));
      if (m) out.push({ pos: k, bundle: i, line: Number(m[1]), col: Number(m[2]) });
      at = k + url.length;
    }
  }
  return out.sort((a, b) => a.pos - b.pos).map(({ bundle, line, col }) => ({ bundle, line, col }));
}

// message is what err says, whatever err is: an Error, a thrown value of
// another kind, or one whose properties throw when read. vx quotes it when
// it holds what a terminal would act on.
function message(err) {
  try {
    if (!(err instanceof Error)) return `the config threw ${describe(err)}`;
    const name = typeof err.name === "string" && err.name && err.name !== "Error" ? err.name + ": " : "";
    return name + String(err.message);
  } catch {
    return "the config threw an error whose message cannot be read";
  }
}

function safeFrames(err) {
  try {
    return frames(err);
  } catch {
    return [];
  }
}

process.on("exit", (code) => {
  if (finished) return;
  // 13: the top-level await never settled; 0: nothing left to wait for.
  const wait = code === 0 || code === 13 ? "; does it wait for something that never comes?" : "";
  write({ error: { msg: `node exited (code ${code}) before the config's default export was there${wait}` } });
});
for (const ev of ["unhandledRejection", "uncaughtException"]) {
  process.on(ev, (err) => {
    if (finished) return;
    write({ error: { msg: message(err), frames: safeFrames(err) } });
    orig.exit(0);
  });
}

const results = [];
for (const b of manifest.bundles) {
  let value;
  try {
    const mod = await import(pathToFileURL(b.bundle).href);
    if (!("default" in mod)) {
      write({ error: { file: b.file, msg: "there is no default export: write export default defineConfig({ tasks: { ... } })" } });
      orig.exit(0);
    }
    value = await mod.default;
  } catch (err) {
    write({ error: { file: b.file, msg: message(err), frames: safeFrames(err) } });
    orig.exit(0);
  }
  if (typeof value === "function") {
    write({ error: { file: b.file, msg: "the default export is a function; export the configuration itself: export default defineConfig({ tasks: { ... } })" } });
    orig.exit(0);
  }
  try {
    results.push({ file: b.file, value: plain(value, [], new Set()) });
  } catch (err) {
    if (err instanceof ReadError) {
      const where = keyPath(err.path) || "the default export";
      write({ error: { file: b.file, msg: `${where}: reading it threw: ${message(err.cause)}`, frames: safeFrames(err.cause) } });
    } else if (err instanceof ShapeError) {
      write({ error: { file: b.file, msg: err.message, shape: true } });
    } else {
      write({ error: { file: b.file, msg: message(err), frames: safeFrames(err) } });
    }
    orig.exit(0);
  }
}

write({
  results,
  nodeVersion: process.version,
  files: [...files],
  lists: [...lists],
  stats: [...stats].map(([k, v]) => [...k.split("\0"), v]),
  env: [...env],
  environ,
  volatile,
});
// The answer is written; what the configs printed too, but on Windows,
// where a write to a pipe may still be under way. Elsewhere node ends at
// once rather than tear down its heap and threads (5-10 ms), once the
// configs' exit listeners ran as process.exit runs them.
if (process.platform !== "win32") {
  process._exiting = true;
  process.emit("exit", 0);
  process.kill(process.pid, "SIGKILL");
}
orig.exit(0);
