// Lanes: 16 lanes × 10,000 events over one loopback WebSocket, against one lane (laneMux overhead).
export async function lanesSection({ rx }) {
  if (typeof rx.laneMux !== 'function' || typeof rx.connectResponsesSocket !== 'function') {
    console.log('\n## Lanes — not available yet (laneMux / connectResponsesSocket missing from dist)');
    return { status: 'not available yet' };
  }
  console.log('\n## Lanes — laneMux is in dist but this section is not written yet');
  return { status: 'not measured' };
}
