export { styleTransfer, type StyleInput } from './style-transfer';
