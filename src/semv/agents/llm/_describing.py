"""The ``describe`` role: the offline observation of an image, plus what a VLM sees in it
(``llm.vision``)."""

from __future__ import annotations

import asyncio
import base64
import mimetypes
from pathlib import Path
from typing import Any

from semv.agents._protocol import DescribeInput, Description
from semv.agents.llm._calls import LlmCalls
from semv.agents.llm._contracts import ImageDescribeInput, ImageDescription
from semv.agents.llm._prompts import render
from semv.agents.llm._schemas import DescribeAnswer
from semv.agents.offline import OfflineAgents
from semv.model import Stage, UncertaintyCode, UncertaintyItem

__all__ = ["DescribingRoles"]


class DescribingRoles(LlmCalls):
    """``describe`` and the VLM's ``describe_image``."""

    async def describe(self, request: DescribeInput) -> Description:
        """The protocol's describe role: the offline structured observation (OCR, EXIF,
        colours), plus what the model sees in the image when it is a VLM (``llm.vision``).
        A failed VLM call leaves the offline observation and says why."""
        if not self.config.vision or not request.images:
            return await self.fallback.describe(request)
        image = request.asset.model_copy(update={"path": request.images[0]})
        # the offline observation (CPU, in a thread) never delays the model call beside it
        base, seen = await asyncio.gather(
            asyncio.to_thread(_offline_describe, self.fallback, request),
            self.describe_image(ImageDescribeInput(asset=image)),
        )
        observations = dict(base.observations)
        if not seen.description:
            observations["vlm_unavailable"] = "; ".join(u.detail for u in seen.uncertainty)
            return base.model_copy(update={"observations": observations})
        observations["vlm"] = {
            "description": seen.description,
            "visible_text": list(seen.visible_text),
            "objects": list(seen.objects),
        }
        return base.model_copy(
            update={
                "text": f"{base.text} Model-described: {seen.description}",
                "observations": observations,
            }
        )

    async def describe_image(self, request: ImageDescribeInput) -> ImageDescription:
        """VLM role: the image as a data URL next to the (delimited) claim."""
        asset = request.asset
        try:
            data = Path(asset.path).read_bytes()
        except OSError as exc:
            return ImageDescription(
                asset_id=asset.id,
                description="",
                uncertainty=(
                    UncertaintyItem(
                        code=UncertaintyCode.MEDIA_UNREADABLE,
                        subject=asset.id,
                        detail=f"{asset.path}: {exc}",
                        stages=(Stage.RETRIEVE,),
                    ),
                ),
            )
        mime = mimetypes.guess_type(asset.path)[0] or "image/jpeg"
        url = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
        content: list[dict[str, Any]] = [
            {"type": "text", "text": render("describe", claim=request.claim or "")},
            {"type": "image_url", "image_url": {"url": url}},
        ]
        answer, problem = await self._ask(
            role="describe",
            prompt="describe",
            answer=DescribeAnswer,
            user=content,
            invocation=self._invocation(),
        )
        if answer is None:
            return ImageDescription(
                asset_id=asset.id,
                description="",
                uncertainty=(
                    self._fallback_note(asset.id, "describe", str(problem), Stage.RETRIEVE),
                ),
            )
        return ImageDescription(
            asset_id=asset.id,
            description=" ".join(answer.description.split()),
            visible_text=tuple(t.strip() for t in answer.visible_text if t.strip()),
            objects=tuple(o.strip() for o in answer.objects if o.strip()),
        )


def _offline_describe(offline: OfflineAgents, request: DescribeInput) -> Description:
    """The offline backend's describe role run to completion (it computes synchronously)."""
    return asyncio.run(offline.describe(request))
