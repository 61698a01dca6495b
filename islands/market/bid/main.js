// The bid page's entry for a bidder's link: the page and the bid form, nothing of the seller's.
import { BidderParts } from './components.js';
import { startBidPage } from './page.js';

const root = document.getElementById('market-bid');
if (root) startBidPage(root, BidderParts);
