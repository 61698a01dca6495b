// The print views' "Save as PDF" (spec 02, PDF print views): html2pdf.js makes the PDF of the
// page's document in the browser, with the options the server writes into its data-html2pdf
// attribute (margins, image quality, scale, A4 portrait). After saving, the window closes by
// itself: 1 s later, 10 s in Firefox, never on a mobile browser. "Print" opens the browser's own
// dialog, which the page's print CSS lays out the same way.

import { keepScrollersFocusable } from '../../lib/scrollers.js';

const CLOSE_AFTER_MS = 1000;
const CLOSE_AFTER_FIREFOX_MS = 10000;

export function closeDelay(userAgent) {
  if (/Android|iPhone|iPad|iPod|Mobile|Opera Mini|IEMobile/i.test(userAgent)) return null;
  return /Firefox\//.test(userAgent) ? CLOSE_AFTER_FIREFOX_MS : CLOSE_AFTER_MS;
}

function options(documentNode) {
  try {
    return JSON.parse(documentNode.dataset.html2pdf || '{}');
  } catch {
    return {};
  }
}

async function savePdf(button, documentNode, status) {
  button.disabled = true;
  status.textContent = status.dataset.saving || '';
  try {
    const { default: html2pdf } = await import('html2pdf.js');
    const settings = { ...options(documentNode), filename: documentNode.dataset.filename || 'document.pdf' };
    document.documentElement.classList.add('print-saving');
    await html2pdf().set(settings).from(documentNode).save();
    status.textContent = '';
    const delay = closeDelay(navigator.userAgent);
    if (delay !== null) setTimeout(() => window.close(), delay);
  } catch {
    status.textContent = status.dataset.failed || '';
  } finally {
    document.documentElement.classList.remove('print-saving');
    button.disabled = false;
  }
}

function start() {
  keepScrollersFocusable();
  const documentNode = document.querySelector('[data-print-document]');
  const save = document.querySelector('[data-save-pdf]');
  const print = document.querySelector('[data-print]');
  const status = document.querySelector('[data-print-status]');
  if (!documentNode || !save) return;
  save.disabled = false;
  save.addEventListener('click', () => savePdf(save, documentNode, status));
  print?.addEventListener('click', () => window.print());
}

if (typeof document !== 'undefined') start();
