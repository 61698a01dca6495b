// How long after saving the PDF the print window closes (spec 02 section 2): 1 s, 10 s in
// Firefox, and never on a mobile browser (null).
export function closeDelay(userAgent) {
  if (/Mobi|Android|iPhone|iPad|iPod/i.test(userAgent)) return null;
  return /Firefox\//.test(userAgent) ? 10000 : 1000;
}
