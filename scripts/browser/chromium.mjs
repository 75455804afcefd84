// Headless Chromium for the browser tests (playwright-core drives the system Chromium; no download).
const LAUNCH_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Launches the Chromium at `executablePath`, headless and unsandboxed (the tests run it as root in a container). */
export async function launchChromium(executablePath) {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath, headless: true, chromiumSandbox: false, args: LAUNCH_ARGS });
}
