#!/usr/bin/env node
// ort-bench.js: ONNX Runtime (npm onnxruntime-node, CPU) on one ONNX model:
// run it on given inputs, save or compare its outputs, time it per
// inference, serve timed batches to a driver, or write ORT's JSON profile.
// The peer of gptop in bench/README.md's ONNX rows; also the independent
// check of data/models/ (data/models/README.md).
//
//   node ort-bench.js MODEL.onnx [options]
//     --input NAME=FILE  an input, .npy or ONNX TensorProto .pb (repeatable;
//                        default: the model's test_data_set_0/input_K.pb
//                        when it has that folder)
//     --threads N        intra-op threads (default $OPENBLAS_NUM_THREADS or
//                        the number of cores); inter-op 1, sequential
//     --save DIR         run once, write each output as DIR/NAME.npy
//     --compare DIR      run once, compare output K with DIR/output_K.pb:
//                        prints per output max |ort - want| / max |want|
//                        (exit 1 when above --rtol, default 1e-4) and the
//                        worst |ort - want| / (atol + rtol |want|) of an
//                        element (reported; --atol default 1e-6)
//     --time N           warmup (--warmup, default 3), then N timed
//                        inferences: prints best and median seconds
//     --no-spin          intra-op threads wait passively (session config
//                        session.intra_op.allow_spinning 0; default: spin)
//     --serve            read a count per line on stdin, run that many
//                        inferences, print their wall seconds (one line)
//     --profile PREFIX   enable ORT's profiler (enable_profiling), run
//                        --runs N (default 3) inferences, write the JSON
//                        profile, print its path
//
// onnxruntime-node is found through $BENCH_ORT_DIR (a folder holding
// node_modules/onnxruntime-node, as `make bench` installs it in bench/out)
// or node's own resolution.
'use strict';
const fs = require('fs');
const path = require('path');
const { createRequire } = require('module');
const readline = require('readline');

function fail(msg) {
  process.stderr.write('ort-bench.js: ' + msg + '\n');
  process.exit(2);
}

function loadOrt() {
  const dir = process.env.BENCH_ORT_DIR;
  try {
    if (dir) return createRequire(path.join(path.resolve(dir), 'x.js'))('onnxruntime-node');
    return require('onnxruntime-node');
  } catch (e) {
    fail('cannot load onnxruntime-node' + (dir ? ' from ' + dir : '') + ': ' + e.message);
  }
}

// --- tensors from files: .npy (format 1.0-3.0) and ONNX TensorProto .pb ---

const NPY_DTYPES = {
  '<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array],
  '<i8': ['int64', BigInt64Array], '<i4': ['int32', Int32Array],
  '<i2': ['int16', Int16Array], '|i1': ['int8', Int8Array],
  '|u1': ['uint8', Uint8Array], '<u2': ['uint16', Uint16Array],
  '<u4': ['uint32', Uint32Array], '<u8': ['uint64', BigUint64Array],
  '|b1': ['bool', Uint8Array],
};

function typed(Ctor, bytes) {
  const copy = Buffer.from(bytes); // aligned copy
  const ab = copy.buffer.slice(copy.byteOffset, copy.byteOffset + copy.length);
  return new Ctor(ab);
}

function readNpy(file) {
  const b = fs.readFileSync(file);
  if (b.toString('latin1', 0, 6) !== '\x93NUMPY') fail(file + ': not a .npy file');
  const major = b[6];
  const hlen = major === 1 ? b.readUInt16LE(8) : b.readUInt32LE(8);
  const hstart = major === 1 ? 10 : 12;
  const h = b.toString('latin1', hstart, hstart + hlen);
  const descr = /'descr':\s*'([^']+)'/.exec(h);
  const order = /'fortran_order':\s*(True|False)/.exec(h);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(h);
  if (!descr || !order || !shape) fail(file + ': cannot read the .npy header');
  if (order[1] === 'True') fail(file + ': fortran_order arrays are not read');
  const dt = NPY_DTYPES[descr[1]];
  if (!dt) fail(file + ': dtype ' + descr[1] + ' not read');
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s).map(Number);
  return { type: dt[0], data: typed(dt[1], b.subarray(hstart + hlen)), dims };
}

function writeNpy(file, type, data, dims) {
  const descr = Object.keys(NPY_DTYPES).find((k) => NPY_DTYPES[k][0] === type);
  if (!descr) fail(file + ': cannot write dtype ' + type);
  const shp = dims.length === 1 ? '(' + dims[0] + ',)' : '(' + dims.join(', ') + ')';
  let h = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shp + ', }';
  while ((10 + h.length + 1) % 64) h += ' ';
  h += '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1; head[7] = 0;
  head.writeUInt16LE(h.length, 8);
  const body = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(h, 'latin1'), body]));
}

// TensorProto fields: dims 1 (int64, packed or not), data_type 2,
// float_data 4, int32_data 5, int64_data 7, name 8, raw_data 9,
// double_data 10, uint64_data 11 (onnx.proto)
const PB_DTYPES = {
  1: ['float32', Float32Array], 2: ['uint8', Uint8Array], 3: ['int8', Int8Array],
  4: ['uint16', Uint16Array], 5: ['int16', Int16Array], 6: ['int32', Int32Array],
  7: ['int64', BigInt64Array], 9: ['bool', Uint8Array], 11: ['float64', Float64Array],
  12: ['uint32', Uint32Array], 13: ['uint64', BigUint64Array],
};

function readPb(file) {
  const b = fs.readFileSync(file);
  let p = 0;
  const varint = () => {
    let r = 0n, s = 0n;
    for (;;) {
      if (p >= b.length) fail(file + ': truncated TensorProto');
      const c = b[p++];
      r |= BigInt(c & 0x7f) << s;
      if (!(c & 0x80)) return r;
      s += 7n;
    }
  };
  const dims = [], vals = [];
  let dtype = 0, raw = null, name = '';
  while (p < b.length) {
    const key = Number(varint()), field = key >> 3, wire = key & 7;
    if (wire === 0) {
      const v = varint();
      if (field === 1) dims.push(Number(v));
      else if (field === 2) dtype = Number(v);
      else if (field === 5 || field === 7 || field === 11) vals.push(v);
    } else if (wire === 2) {
      const len = Number(varint()), sub = b.subarray(p, p + len);
      if (field === 9) raw = sub;
      else if (field === 8) name = sub.toString('utf8');
      else if (field === 1 || field === 5 || field === 7 || field === 11) {
        const end = p + len;
        while (p < end) {
          const v = varint();
          (field === 1 ? dims : vals).push(field === 1 ? Number(v) : v);
        }
        p = end;
        continue;
      } else if (field === 4) {
        for (let i = 0; i < len; i += 4) vals.push(sub.readFloatLE(i));
      } else if (field === 10) {
        for (let i = 0; i < len; i += 8) vals.push(sub.readDoubleLE(i));
      }
      p += len;
    } else if (wire === 5) {
      if (field === 4) vals.push(b.readFloatLE(p));
      p += 4;
    } else if (wire === 1) {
      if (field === 10) vals.push(b.readDoubleLE(p));
      p += 8;
    } else fail(file + ': wire type ' + wire + ' not expected in a TensorProto');
  }
  const dt = PB_DTYPES[dtype];
  if (!dt) fail(file + ': TensorProto data_type ' + dtype + ' not read');
  let data;
  if (raw) data = typed(dt[1], raw);
  else {
    data = new dt[1](vals.length);
    const big = dt[1] === BigInt64Array || dt[1] === BigUint64Array;
    vals.forEach((v, i) => { data[i] = big ? BigInt(v) : Number(v); });
  }
  return { type: dt[0], data, dims, name };
}

function readTensor(file) {
  return file.endsWith('.npy') ? readNpy(file) : readPb(file);
}

// --- options ---

const args = process.argv.slice(2);
if (args.length === 0 || args[0] === '--help') {
  process.stdout.write(fs.readFileSync(__filename, 'utf8').split('\n')
    .filter((l) => l.startsWith('//')).map((l) => l.slice(3)).join('\n') + '\n');
  process.exit(args.length === 0 ? 2 : 0);
}
const model = args.shift();
const opt = { inputs: {}, threads: 0, warmup: 3, runs: 3, rtol: 1e-4, atol: 1e-6 };
while (args.length) {
  const a = args.shift();
  const val = () => { if (!args.length) fail(a + ' needs a value'); return args.shift(); };
  if (a === '--input') {
    const v = val(), eq = v.indexOf('=');
    if (eq < 1) fail('--input ' + v + ': expected NAME=FILE');
    opt.inputs[v.slice(0, eq)] = v.slice(eq + 1);
  } else if (a === '--threads') opt.threads = Number(val());
  else if (a === '--save') opt.save = val();
  else if (a === '--compare') opt.compare = val();
  else if (a === '--time') opt.time = Number(val());
  else if (a === '--warmup') opt.warmup = Number(val());
  else if (a === '--runs') opt.runs = Number(val());
  else if (a === '--rtol') opt.rtol = Number(val());
  else if (a === '--atol') opt.atol = Number(val());
  else if (a === '--serve') opt.serve = true;
  else if (a === '--no-spin') opt.noSpin = true;
  else if (a === '--profile') opt.profile = val();
  else fail('unknown option ' + a);
}
if (!opt.threads)
  opt.threads = Number(process.env.OPENBLAS_NUM_THREADS) || require('os').cpus().length;

async function main() {
  const ort = loadOrt();
  const so = {
    executionProviders: ['cpu'], graphOptimizationLevel: 'all',
    executionMode: 'sequential', intraOpNumThreads: opt.threads,
    interOpNumThreads: 1, logSeverityLevel: 3,
  };
  // session.intra_op.allow_spinning: ORT's pool threads spin while they
  // wait for work (the default); on a loaded machine passive waits can win
  if (opt.noSpin) so.extra = { session: { intra_op: { allow_spinning: '0' } } };
  if (opt.profile) {
    so.enableProfiling = true;
    so.profileFilePrefix = opt.profile;
  }
  const sess = await ort.InferenceSession.create(model, so);
  const feeds = {};
  const tds = path.join(path.dirname(model), 'test_data_set_0');
  sess.inputNames.forEach((n, k) => {
    let f = opt.inputs[n];
    if (!f && fs.existsSync(path.join(tds, 'input_' + k + '.pb')))
      f = path.join(tds, 'input_' + k + '.pb');
    if (!f) fail(model + ': no file for input ' + n + ' (--input ' + n + '=FILE)');
    const t = readTensor(f);
    feeds[n] = new ort.Tensor(t.type, t.data, t.dims);
  });
  const run = () => sess.run(feeds);

  if (opt.profile) {
    for (let i = 0; i < opt.runs; i++) await run();
    sess.endProfiling();
    // ORT names the file PREFIX_DATE.json
    const dir = path.dirname(path.resolve(opt.profile));
    const base = path.basename(opt.profile) + '_';
    const f = fs.readdirSync(dir).filter((x) => x.startsWith(base) && x.endsWith('.json'))
      .map((x) => path.join(dir, x))
      .sort((x, y) => fs.statSync(y).mtimeMs - fs.statSync(x).mtimeMs)[0];
    process.stdout.write((f || '(no profile written)') + '\n');
    return;
  }
  if (opt.save || opt.compare) {
    const out = await run();
    let worst = 0;
    sess.outputNames.forEach((n, k) => {
      const t = out[n];
      if (opt.save) writeNpy(path.join(opt.save, n + '.npy'), t.type, t.data, t.dims);
      if (!opt.compare) return;
      const want = readPb(path.join(opt.compare, 'output_' + k + '.pb'));
      if (want.dims.join(',') !== t.dims.join(',') || want.data.length !== t.data.length)
        fail(n + ': ORT gives [' + t.dims + '], the file [' + want.dims + ']');
      let w = 0, at = -1, maxdiff = 0, maxwant = 0;
      for (let i = 0; i < t.data.length; i++) {
        const g = Number(t.data[i]), e = Number(want.data[i]);
        const r = Math.abs(g - e) / (opt.atol + opt.rtol * Math.abs(e));
        if (!(r <= w)) { w = r; at = i; }
        if (!(Math.abs(g - e) <= maxdiff)) maxdiff = Math.abs(g - e);
        maxwant = Math.max(maxwant, Math.abs(e));
      }
      const rel = maxdiff / (maxwant || 1);
      worst = Math.max(worst, rel / opt.rtol);
      process.stdout.write(n + ': ' + t.type + '[' + t.dims + '] max |diff| ' +
        maxdiff.toPrecision(3) + ', ' + rel.toPrecision(3) + ' of max |want| ' +
        maxwant.toPrecision(4) + '; worst element ' + at + ' at ' + w.toPrecision(3) +
        ' of atol ' + opt.atol + ' + rtol ' + opt.rtol + ' |want|\n');
    });
    if (opt.compare && !(worst <= 1)) process.exit(1);
    return;
  }
  for (let i = 0; i < opt.warmup; i++) await run();
  if (opt.time) {
    const ts = [];
    for (let i = 0; i < opt.time; i++) {
      const t0 = process.hrtime.bigint();
      await run();
      ts.push(Number(process.hrtime.bigint() - t0) / 1e9);
    }
    ts.sort((x, y) => x - y);
    process.stdout.write('best ' + ts[0] + ' median ' + ts[ts.length >> 1] +
      ' seconds per inference (' + opt.time + ' runs, ' + opt.threads + ' threads)\n');
    return;
  }
  if (opt.serve) {
    process.stdout.write('ready\n');
    const rl = readline.createInterface({ input: process.stdin });
    for await (const line of rl) {
      const n = Number(line.trim());
      if (!(n > 0)) break;
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < n; i++) await run();
      process.stdout.write(Number(process.hrtime.bigint() - t0) / 1e9 + '\n');
    }
  }
}

main().catch((e) => fail(model + ': ' + (e && e.message ? e.message : e)));
