// dcmjs ships no type declarations; the few calls we make are typed where they are used.
declare module "dcmjs";
