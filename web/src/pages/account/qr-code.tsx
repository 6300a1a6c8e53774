import { generate } from 'lean-qr';

/**
 * A QR code drawn as SVG in the page from the text it carries (lean-qr computes the modules; no
 * image is fetched from anywhere, and the secret never leaves the page).
 */
export function QrCode({ text, label }: { text: string; label: string }) {
  const code = generate(text);
  const quiet = 4;
  const side = code.size + quiet * 2;
  let path = '';
  for (let y = 0; y < code.size; y += 1) {
    for (let x = 0; x < code.size; x += 1) if (code.get(x, y)) path += `M${x + quiet} ${y + quiet}h1v1h-1z`;
  }
  return (
    <svg className="qr-code" viewBox={`0 0 ${side} ${side}`} role="img" aria-label={label} shapeRendering="crispEdges">
      <rect width={side} height={side} fill="#fff" />
      <path d={path} fill="#000" />
    </svg>
  );
}
