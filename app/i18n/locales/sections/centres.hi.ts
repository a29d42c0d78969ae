import type en from "./centres.en";

const centres: typeof en = {};
export default centres;
