// Bundled by the benchmark and injected into the app's page: times our real unlock path.
import { deriveDeviceKey, newKdfParams, open, seal } from "../../client/crypto/device_key.ts";

(globalThis as unknown as { qcBench: unknown }).qcBench = async (runs: number) => {
  const kdf = newKdfParams();
  const key = await deriveDeviceKey("135790", kdf);
  const sealed = await seal(key, kdf, "x".repeat(43));
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const k = await deriveDeviceKey("135790", sealed.kdf);
    await open(k, sealed);
    times.push(performance.now() - t0);
  }
  return { iterations: kdf.iterations, times };
};
