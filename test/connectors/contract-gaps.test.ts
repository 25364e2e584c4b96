// Connector contract points not covered by the reference-agent suites: G.711 μ-law on the wire (both
// ways, bit for bit), realtime `error` events kept as agent errors without ending the call, stopUplink
// cutting a duplex uplink, and `voxmetrics call --connector <module>` with a connector class.
import { afterEach, describe, expect, it } from "vitest";
import { WebSocketServer, type WebSocket } from "ws";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { RealtimeConnector, WebSocketConnector, decodeAudio, mulawDecode, mulawEncode } from "../../src/index.js";
import { REPO_ROOT } from "../helpers/shared.js";
import { ensureBuilt } from "../helpers/dist.js";

const servers: WebSocketServer[] = [];
const tmps: string[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    for (const c of s.clients) c.terminate();
    await new Promise<void>((r) => s.close(() => r()));
  }
  for (const t of tmps.splice(0)) rmSync(t, { recursive: true, force: true });
});

async function serve(onConnection: (ws: WebSocket) => void): Promise<string> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  servers.push(wss);
  await new Promise<void>((r) => wss.once("listening", () => r()));
  wss.on("connection", onConnection);
  const addr = wss.address() as { port: number };
  return `ws://127.0.0.1:${addr.port}`;
}

/** A deterministic speech-like test signal (two partials, raised to a level the turn engine calls speech). */
function tone(samples: number, rate: number, hz = 220): Int16Array {
  const out = new Int16Array(samples);
  for (let i = 0; i < samples; i++) out[i] = Math.round(6000 * Math.sin((2 * Math.PI * hz * i) / rate) + 2000 * Math.sin((2 * Math.PI * 3.1 * hz * i) / rate));
  return out;
}

describe("G.711 μ-law on the wire", () => {
  it("sends the caller's PCM as μ-law bytes and decodes the agent's μ-law reply bit for bit", async () => {
    const rate = 8000;
    const caller = tone(rate / 2, rate); // 0.5 s at the wire rate: no resampling on the way out
    const reply = tone(rate, rate, 330);
    const replyBytes = mulawEncode(reply);
    const received: Buffer[] = [];
    const url = await serve((ws) => {
      let replied = false;
      ws.on("message", (data) => {
        const msg = JSON.parse(String(data)) as { audio: string };
        received.push(Buffer.from(msg.audio, "base64"));
        const got = received.reduce((n, b) => n + b.length, 0);
        if (!replied && got >= caller.length) {
          replied = true;
          for (let i = 0; i < replyBytes.length; i += 160) ws.send(JSON.stringify({ audio: Buffer.from(replyBytes.subarray(i, i + 160)).toString("base64") }));
          ws.send(JSON.stringify({ type: "turn_complete" }));
        }
      });
    });
    const c = new WebSocketConnector({ url, sampleRate: rate, encoding: "mulaw", turnCompleteType: "turn_complete", trailingSilenceMs: 0, turnDetection: { preset: "eager", maxTurnTimeoutS: 5 } });
    expect(c.audioFormat).toEqual({ sampleRate: rate, encoding: "mulaw" });
    try {
      await c.connect();
      const turn = await c.exchangeTurn({ pcm: caller, sampleRate: rate });
      // Uplink: one byte per sample, exactly the G.711 encoding of what we sent.
      const sent = Buffer.concat(received);
      expect(sent.length).toBe(caller.length);
      expect(Buffer.compare(sent, Buffer.from(mulawEncode(caller)))).toBe(0);
      // Downlink: the reply WAV holds the μ-law decode of the agent's bytes, sample for sample.
      const decoded = decodeAudio(turn.audio.getBytes());
      const expected = mulawDecode(replyBytes);
      expect(decoded.sampleRate).toBe(rate);
      expect(decoded.channels).toBe(1);
      expect(Array.from(decoded.samples)).toEqual(Array.from(expected));
    } finally {
      await c.disconnect();
    }
  });
});

describe("realtime error events", () => {
  it("keeps a non-fatal `error` event as an agent error (code and message) and still records the reply", async () => {
    const rate = 24000;
    const reply = tone(rate / 2, rate, 200);
    const url = await serve((ws) => {
      let got = 0;
      let replied = false;
      ws.on("message", (data) => {
        const msg = JSON.parse(String(data)) as { type: string; audio?: string };
        if (msg.type === "session.update") ws.send(JSON.stringify({ type: "session.updated", session: {} }));
        if (msg.type === "input_audio_buffer.append") {
          got += Buffer.from(msg.audio!, "base64").length / 2;
          if (!replied && got >= rate / 4) {
            replied = true;
            ws.send(JSON.stringify({ type: "error", error: { type: "invalid_request_error", code: "unknown_parameter", message: "Unknown parameter: 'session.foo'." } }));
            for (let i = 0; i < reply.length; i += 480) {
              const chunk = reply.subarray(i, i + 480);
              ws.send(JSON.stringify({ type: "response.audio.delta", response_id: "r1", item_id: "i1", delta: Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString("base64") }));
            }
            ws.send(JSON.stringify({ type: "response.done", response: { id: "r1" } }));
          }
        }
      });
    });
    const c = new RealtimeConnector({ url, trailingSilenceMs: 0, turnDetection: { preset: "eager", maxTurnTimeoutS: 5 } });
    try {
      await c.connect();
      const turn = await c.exchangeTurn({ pcm: tone(rate / 4, rate), sampleRate: rate });
      expect(c.agentErrors).toEqual(["unknown_parameter: Unknown parameter: 'session.foo'."]);
      const decoded = decodeAudio(turn.audio.getBytes());
      expect(decoded.frames).toBe(reply.length);
      expect(turn.capture?.endedBy).toBe("turn_complete");
    } finally {
      await c.disconnect();
    }
  });
});

describe("stopUplink", () => {
  it("cuts a duplex uplink in progress: no further frames and no trailing pad go out, and the result says so", async () => {
    const rate = 16000;
    let bytes = 0;
    const url = await serve((ws) => {
      ws.on("message", (data) => {
        bytes += Buffer.from((JSON.parse(String(data)) as { audio: string }).audio, "base64").length;
      });
    });
    const c = new WebSocketConnector({ url, sampleRate: rate, trailingSilenceMs: 1000, turnDetection: { preset: "eager", maxTurnTimeoutS: 5 } });
    try {
      await c.connect();
      const clip = tone(rate * 3, rate);
      const started = performance.now();
      const uplink = c.streamUplink({ pcm: clip, sampleRate: rate });
      await new Promise((r) => setTimeout(r, 400));
      await c.stopUplink();
      const stoppedAt = performance.now();
      const result = await uplink;
      expect(result.stopped).toBe(true);
      // Every frame sent before the stop arrives (however loaded the machine: wait for them, bounded),
      // then nothing more does: no further frames and no trailing pad.
      for (let i = 0; i < 200 && bytes / 2 < result.pcm.length; i++) await new Promise((r) => setTimeout(r, 25));
      await new Promise((r) => setTimeout(r, 300));
      const sentSamples = bytes / 2;
      expect(sentSamples).toBe(result.pcm.length);
      // The uplink was cut mid-clip: about 0.4 s went out, paced in real time — never more than the
      // time until the stop allows (plus the frame in hand) — far less than the 3 s clip plus its 1 s pad.
      expect(sentSamples).toBeGreaterThan(rate * 0.2);
      expect(sentSamples).toBeLessThanOrEqual(((stoppedAt - started) / 1000) * rate + rate * 0.02);
      expect(sentSamples).toBeLessThan(clip.length);
    } finally {
      await c.disconnect();
    }
  });
});

describe("voxmetrics call --connector <module>", () => {
  const run = promisify(execFile);
  const BIN = join(REPO_ROOT, "bin", "voxmetrics.js");
  const DIST = pathToFileURL(join(REPO_ROOT, "dist", "index.js")).href;
  const CLIP = join(REPO_ROOT, "fixtures", "sample-archive", "deepeval-runs", "simulation-2026-01-15_09-30-00", "deepeval-turn-1-user.wav");

  for (const form of ["class", "createConnector"] as const) {
    it(`takes a module exporting a connector ${form === "class" ? "class (default export)" : "factory (createConnector)"}, constructed with the call's options`, async () => {
      ensureBuilt();
      const tmp = mkdtempSync(join(tmpdir(), "vox-gap-module-"));
      tmps.push(tmp);
      writeFileSync(join(tmp, "clip.wav"), readFileSync(CLIP));
      const body =
        form === "class"
          ? `export default class EchoConnector extends CallbackConnector {\n  constructor(options) { super(async (audio) => { await new Promise((r) => setTimeout(r, 150)); return { audio, transcript: "echo" }; }, options); seen.push(options.turnDetection); }\n}\n`
          : `export function createConnector(options) { seen.push(options.turnDetection); return new CallbackConnector(async (audio) => { await new Promise((r) => setTimeout(r, 150)); return { audio, transcript: "echo" }; }, options); }\n`;
      const mod = join(tmp, "connector.mjs");
      writeFileSync(mod, `import { CallbackConnector } from ${JSON.stringify(DIST)};\nconst seen = [];\nprocess.on("exit", () => process.stderr.write("turnDetection=" + JSON.stringify(seen) + "\\n"));\n${body}`);
      writeFileSync(join(tmp, "script.json"), JSON.stringify({ name: "echo", turns: [{ audio: "clip.wav" }] }));
      const out = join(tmp, "out");
      const r = await run("node", [BIN, "call", "--connector", mod, "--script", join(tmp, "script.json"), "--out", out, "--turn-detection", "patient"], { timeout: 60_000 });
      expect(JSON.parse(r.stdout.trim())).toMatchObject({ name: "echo", turns: 2, error: null });
      expect(r.stderr).toContain('turnDetection=["patient"]');
      const tc = JSON.parse(readFileSync(join(out, "echo.json"), "utf8"));
      expect(tc.metadata.protocol).toBe("callback");
      expect(tc.turns[1].content).toBe("echo");
      expect(tc.turns[1].latency_ms).toBeGreaterThanOrEqual(145);
    }, 90_000);
  }
});
