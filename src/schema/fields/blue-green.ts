/** strategy.blueGreen. */
import { DOCS, bool, int, intOrPercent, obj, str } from '../field-spec';
import { antiAffinity, podMetadata, rolloutAnalysis } from './common';

const BG = `${DOCS}/bluegreen/`;

export const blueGreen = obj(
  'blueGreen',
  'The blue-green strategy: the new version comes up in full beside the old one, reachable through the preview Service; promotion switches the active Service to it in one step.',
  [
    str(
      'activeService',
      "The Service that carries production traffic. Argo points its selector at the active ReplicaSet's pod-template hash; promotion switches it to the new version.",
      { required: true, link: BG, example: 'activeService: checkout-active' },
    ),
    str(
      'previewService',
      'A Service that Argo points at the new version before promotion, for tests against the new pods. Must differ from activeService.',
      { link: BG, example: 'previewService: checkout-preview' },
    ),
    bool(
      'autoPromotionEnabled',
      'Promote by itself once the new ReplicaSet is ready (after autoPromotionSeconds). Set to false to wait for a manual promote.',
      { link: BG, example: 'autoPromotionEnabled: false' },
    ),
    int(
      'autoPromotionSeconds',
      'Wait this many seconds after the new ReplicaSet is ready before promoting by itself. Ignored when autoPromotionEnabled is false.',
      { min: 0, link: BG, example: 'autoPromotionSeconds: 300' },
    ),
    int(
      'previewReplicaCount',
      'Run only this many pods of the new version before promotion, to save resources while previewing; it is scaled to full size when promoted.',
      { min: 0, link: BG, example: 'previewReplicaCount: 1' },
    ),
    int(
      'scaleDownDelaySeconds',
      'How long the previous version stays up after the active Service switched, so clients and load balancers can move off it (and a quick rollback stays possible). Note that `0` does not scale down immediately: the old ReplicaSet is kept.',
      { min: 0, link: BG, example: 'scaleDownDelaySeconds: 600' },
    ),
    int(
      'scaleDownDelayRevisionLimit',
      'How many old ReplicaSets may wait for their scale-down delay at once; older ones are scaled down at once. Must not exceed revisionHistoryLimit.',
      { example: 'scaleDownDelayRevisionLimit: 2', min: 0, link: BG },
    ),
    int(
      'abortScaleDownDelaySeconds',
      'After an abort, how long the preview ReplicaSet stays up before it is scaled down. `0` leaves it up.',
      { example: 'abortScaleDownDelaySeconds: 0  # keep the preview up after an abort', min: 0, link: `${DOCS}/scaledown-aborted-rs/` },
    ),
    rolloutAnalysis(
      'prePromotionAnalysis',
      'An analysis run against the preview before the active Service switches; promotion waits for it and a failure aborts.',
      'prePromotionAnalysis:\n  templates:\n  - templateName: smoke-tests',
      `${BG}#prepromotionanalysis`,
    ),
    rolloutAnalysis(
      'postPromotionAnalysis',
      'An analysis run after the active Service switched; a failure switches traffic back to the previous version while it is still up.',
      'postPromotionAnalysis:\n  templates:\n  - templateName: success-rate',
      `${BG}#postpromotionanalysis`,
    ),
    antiAffinity,
    podMetadata(
      'previewMetadata',
      "Labels and annotations put on the new version's pods while they are the preview.",
      `${DOCS}/ephemeral-metadata/`,
      'previewMetadata:\n  labels:\n    role: preview',
    ),
    podMetadata(
      'activeMetadata',
      'Labels and annotations put on the pods of the active (stable) version.',
      `${DOCS}/ephemeral-metadata/`,
      'activeMetadata:\n  labels:\n    role: active',
    ),
    intOrPercent(
      'maxUnavailable',
      'How many pods may be unavailable while Argo restarts pods (`restartAt`): a count or a percentage of spec.replicas rounded down.',
      { example: 'maxUnavailable: 1', link: `${DOCS}/restart/` },
    ),
  ],
  { link: BG, example: 'blueGreen:\n  activeService: checkout-active\n  previewService: checkout-preview\n  autoPromotionEnabled: false' },
);
