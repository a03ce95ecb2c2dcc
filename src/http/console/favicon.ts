// The site's icon (GET /favicon.ico, which browsers ask for on every page): a 16x16 ICO, the
// console's accent blue with a white "t", built once from its pixels (an uncompressed 32-bit
// bitmap needs no image library and no file to ship).

const SIZE = 16;
const BLUE = [0xad, 0x5c, 0x0b, 0xff]; // BGRA of #0b5cad
const WHITE = [0xff, 0xff, 0xff, 0xff];

/** The letter's pixels, top row first: a "t" (stem and bar). */
function isLetter(x: number, y: number): boolean {
  const stem = x >= 6 && x <= 8 && y >= 3 && y <= 12;
  const bar = y >= 5 && y <= 6 && x >= 4 && x <= 11;
  const foot = y >= 11 && y <= 12 && x >= 6 && x <= 11;
  return stem || bar || foot;
}

function buildIcon(): Buffer {
  const pixels = Buffer.alloc(SIZE * SIZE * 4);
  // A bitmap's rows go bottom up.
  for (let row = 0; row < SIZE; row++) {
    const y = SIZE - 1 - row;
    for (let x = 0; x < SIZE; x++)
      Buffer.from(isLetter(x, y) ? WHITE : BLUE).copy(pixels, (row * SIZE + x) * 4);
  }
  const mask = Buffer.alloc(SIZE * 4); // the AND mask: every pixel opaque (rows padded to 4 bytes)
  const info = Buffer.alloc(40);
  info.writeUInt32LE(40, 0); // BITMAPINFOHEADER
  info.writeInt32LE(SIZE, 4);
  info.writeInt32LE(SIZE * 2, 8); // the colour rows and the mask's
  info.writeUInt16LE(1, 12);
  info.writeUInt16LE(32, 14);
  info.writeUInt32LE(pixels.length + mask.length, 20);
  const image = Buffer.concat([info, pixels, mask]);
  const header = Buffer.alloc(6 + 16);
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(1, 4); // one image
  header.writeUInt8(SIZE, 6);
  header.writeUInt8(SIZE, 7);
  header.writeUInt16LE(1, 10); // colour planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(image.length, 14);
  header.writeUInt32LE(header.length, 18);
  return Buffer.concat([header, image]);
}

export const FAVICON_ICO: Buffer = buildIcon();
