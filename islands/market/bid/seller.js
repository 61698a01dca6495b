// The bid page's entry for a seller's link (allocate, change status): the page and the
// seller's forms.
import { startBidPage } from './page.js';
import { SellerParts } from './seller-forms.js';

const root = document.getElementById('market-bid');
if (root) startBidPage(root, SellerParts);
